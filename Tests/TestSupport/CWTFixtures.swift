import TokenTools
import TokenVerifier

/// CWTs (spec §2b) for the tests, made with the library's CWT signer, and CBOR pieces to build
/// odd ones.
extension Fixtures {
    /// A CWT over the JSON `claims` (names mapped to their CWT keys).
    package static func cwt(_ key: SigningKey, claims: String = Fixtures.claims()) -> String {
        try! CWTSigner(key: key).sign(claims: Array(claims.utf8))
    }

    /// A CWT with the given payload (default: the standard claims as CBOR), protected header
    /// (default: `{1: alg, 4: h'kid'}`) and unprotected header, all CBOR bytes.
    package static func cwt(
        _ key: SigningKey, payload: [UInt8]? = nil, protected: [UInt8]? = nil,
        unprotected: [UInt8] = [0xA0], presentedPayload: [UInt8]? = nil
    ) -> String {
        let message = CWTSigner(key: key).sign(
            payload: payload ?? cwtClaims(), protected: protected,
            unprotected: unprotected, presentedPayload: presentedPayload)
        return Base64URL.encodeString(message)
    }

    /// The CBOR claims map of the JSON `claims`.
    package static func cwtClaims(_ claims: String = Fixtures.claims()) -> [UInt8] {
        try! CWTSigner.claimsCBOR(json: Array(claims.utf8))
    }

    /// The CBOR bytes of a CWT.
    package static func cborBytes(ofCWT token: String) -> [UInt8] {
        Base64URL.decode(Array(token.utf8))!
    }
}

/// CBOR items for hand-built test messages (shortest-form heads).
package enum CBOR {
    package static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        switch argument {
        case 0..<24: [major << 5 | UInt8(argument)]
        case 24...0xFF: [major << 5 | 24, UInt8(argument)]
        case 0x100...0xFFFF: [major << 5 | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        default: [major << 5 | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> (8 * UInt64($0))) }
        }
    }
    package static func int(_ value: Int) -> [UInt8] {
        value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value))
    }
    package static func text(_ value: String) -> [UInt8] { head(3, UInt64(value.utf8.count)) + Array(value.utf8) }
    package static func bytes(_ value: [UInt8]) -> [UInt8] { head(2, UInt64(value.count)) + value }
    package static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, UInt64(items.count)) + items.flatMap { $0 } }
    /// A map of already encoded keys and values, in the given order (duplicates kept).
    package static func map(_ entries: [([UInt8], [UInt8])]) -> [UInt8] {
        head(5, UInt64(entries.count)) + entries.flatMap { $0.0 + $0.1 }
    }
    /// A protected header `{1: alg, 4: h'kid'}`.
    package static func protected(alg: Int, kid: String) -> [UInt8] {
        map([(int(1), int(alg)), (int(4), bytes(Array(kid.utf8)))])
    }
}
