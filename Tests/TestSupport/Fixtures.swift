import Foundation
import TokenTools
import TokenVerifier

/// Keys, claims and tokens for the tests of every module, made with the library's signer.
package struct Fixtures {
    package init() {}

    package static let now: Double = 1_800_000_000

    package let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
    package let edDSA = SigningKey.generate(algorithm: .edDSA, keyID: "eddsa-1")
    package let es = SigningKey.generate(algorithm: .es256, keyID: "es-1")
    package let prodKey = SigningKey.generate(
        algorithm: .ed25519, keyID: "prod-1", environment: .production, issuer: "operator-a")

    package var keySet: KeySet {
        try! KeySet(keys: [ed, edDSA, es, prodKey].map { try! Self.publicKey($0) })
    }

    package static func publicKey(_ key: SigningKey) throws -> VerificationKey {
        let file = try writeTemporary("{\"keys\":[\(key.publicJWK)]}")
        return try KeySet.load(files: [file]).0.keys[0]
    }

    package func verifier(
        revocations: RevocationList = .empty,
        options: VerificationOptions = VerificationOptions(checkTime: Fixtures.now)
    ) -> Verifier {
        Verifier(keys: keySet, revocations: revocations, options: options)
    }

    /// Claims JSON with defaults that pass every check at `now`; `overrides` replace or add
    /// members (raw JSON values); a nil value removes the member.
    package static func claims(_ overrides: [String: String?] = [:]) -> String {
        var members: [(String, String)] = [
            ("iss", "\"operator-a\""), ("sub", "\"phone-1\""), ("aud", "\"car-1\""), ("jti", "\"t-1\""),
            ("iat", "1799990000"), ("exp", "1800003600"), ("ch", "[\"ble\",\"nfc\"]"), ("cmd", "[\"unlock\",\"lock\"]"),
            ("role", "\"owner\""),
        ]
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    package static func token(_ key: SigningKey, claims: String = Fixtures.claims(), header: String? = nil) -> String {
        if let header { return key.sign(header: Array(header.utf8), claims: Array(claims.utf8)) }
        return key.sign(claims: Array(claims.utf8))
    }

    package static func writeTemporary(_ text: String, name: String = "file") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokenverify-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

/// `segment` of a compact token replaced.
package func replacingSegment(_ token: String, _ index: Int, with segment: String) -> String {
    var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[index] = segment
    return parts.joined(separator: ".")
}

package func b64(_ text: String) -> String { Base64URL.encodeString(Array(text.utf8)) }

package func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Wraps a value that is handed to other threads under a discipline the compiler cannot see.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
