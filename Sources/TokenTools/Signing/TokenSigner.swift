internal import CSodium
internal import CTokenSigning
import TokenVerifier

/// Signs many tokens with one key on one thread, straight into a byte buffer: the hot path of
/// `gen`. Ed25519 signs with libsodium (deterministic by design); ES256 signs with RFC 6979
/// nonces (deterministic: the same key and claims give the same token on any machine), computed
/// in `p256_sign.c` because OpenSSL 3.0 has no deterministic ECDSA. Not for sharing across threads:
/// make one per worker.
package final class TokenSigner {
    /// The key this signer uses.
    package let key: SigningKey
    private let encodedHeader: [UInt8]
    private let ed25519SecretKey: [UInt8]
    private let p256Signer: UnsafeMutableRawPointer?
    private var signature = [UInt8](repeating: 0, count: 64)

    /// A signer for `key`; every token gets the header `{"alg":…,"kid":…,"typ":"JWT"}`.
    package convenience init(key: SigningKey) {
        self.init(key: key, header: key.standardHeader)
    }

    /// A signer whose tokens get `header` (JSON object bytes, used as they are), as a chained
    /// token's `{"alg":…,"typ":"JWT","x5c":[…]}` (``TokenChain/jwsHeader(algorithm:type:)``).
    package init(key: SigningKey, header: [UInt8]) {
        self.key = key
        encodedHeader = Base64URL.encode(header)
        switch key.material {
        case .ed25519(_, let secretKey, _):
            ed25519SecretKey = secretKey
            p256Signer = nil
        case .p256(let privateKey):
            ed25519SecretKey = []
            guard let signer = tv_p256_deterministic_signer_new(privateKey.d) else {
                fatalError("OpenSSL could not set up a signer for a valid P-256 key")
            }
            p256Signer = signer
        }
    }

    deinit { tv_p256_deterministic_signer_free(p256Signer) }

    /// Appends the compact token over `claims` (JSON object bytes, used as they are) to `output`.
    /// With `presentedClaims`, the signature is still made over `claims` but the token carries
    /// `presentedClaims` as its payload (a tampered token, for test sets).
    package func appendToken(
        claims: UnsafeBufferPointer<UInt8>, to output: inout [UInt8],
        presentedClaims: UnsafeBufferPointer<UInt8>? = nil
    ) {
        let start = output.count
        output.append(contentsOf: encodedHeader)
        output.append(UInt8(ascii: "."))
        let payloadStart = output.count
        Base64URL.append(claims, to: &output)
        let end = output.count
        output.withUnsafeBufferPointer { buffer in
            let input = UnsafeBufferPointer(rebasing: buffer[start..<end])
            signature.withUnsafeMutableBufferPointer { sign(input, into: $0.baseAddress!) }
        }
        if let presentedClaims {
            output.removeSubrange(payloadStart..<end)
            Base64URL.append(presentedClaims, to: &output)
        }
        output.append(UInt8(ascii: "."))
        signature.withUnsafeBufferPointer { Base64URL.append($0, to: &output) }
    }

    private func sign(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        if let p256Signer {
            guard tv_p256_sign_deterministic(p256Signer, input.baseAddress, input.count, out) == 1 else {
                fatalError("OpenSSL could not sign with a valid P-256 key")
            }
        } else {
            ed25519SecretKey.withUnsafeBufferPointer { secretKey in
                _ = crypto_sign_detached(out, nil, input.baseAddress, UInt64(input.count), secretKey.baseAddress!)
            }
        }
    }

    /// The 64-byte r‖s ES256 signature of `message` with an RFC 6979 nonce (nil for an Ed25519
    /// key), and the nonce `k` used: for tests against RFC 6979's vectors.
    package static func deterministicES256(
        _ message: [UInt8], privateScalar d: [UInt8]
    ) -> (signature: [UInt8], nonce: [UInt8])? {
        guard d.count == 32, let signer = tv_p256_deterministic_signer_new(d) else { return nil }
        defer { tv_p256_deterministic_signer_free(signer) }
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&digest, message, UInt64(message.count))
        var signature = [UInt8](repeating: 0, count: 64)
        var nonce = [UInt8](repeating: 0, count: 32)
        guard tv_p256_sign_digest_deterministic(signer, digest, &signature, &nonce) == 1 else { return nil }
        return (signature, nonce)
    }

}
