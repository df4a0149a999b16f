/// Check 12: the signature over `header.payload` verifies with the configured key, through
/// libsodium (Ed25519) or OpenSSL (ES256). Consults the signature cache first, when there is one.
struct SignaturePolicy {
    /// `digest` is the token's cache key, computed once per token by the worker whenever
    /// `state` has a signature cache (nil exactly when it has none).
    func check(token: UnsafeBufferPointer<UInt8>, parsed: ParsedToken, digest: KeyedHash.Digest?, keyIndex: Int,
               state: VerifierState, worker: VerificationWorker, _ failures: inout FailureList) {
        if let digest, let cache = state.signatureCache, cache.contains(digest) { return }
        let keys = state.keys.keys
        let type = keys[keyIndex].type
        let message = UnsafeBufferPointer(rebasing: token[..<parsed.signingInputLength])
        let verified = parsed.withBytes(parsed.signature) { signature in
            switch type {
            case .ed25519:
                return keys[keyIndex].publicKeyBytes.withUnsafeBufferPointer { publicKey in
                    Ed25519.verify(signature: signature, message: message, publicKey: publicKey)
                }
            case .p256:
                return worker.p256Context(for: keyIndex, in: state).verify(signature: signature, message: message)
            }
        }
        if verified {
            if let digest { state.signatureCache?.insert(digest) }
        } else {
            let expected = type == .ed25519 ? "a 64-byte Ed25519 signature" : "a 64-byte r‖s ES256 signature"
            if parsed.signature.count != 64 {
                failures.add(.badSignature, "the signature is \(parsed.signature.count) bytes; expected \(expected)")
            } else {
                failures.add(.badSignature, "the signature does not verify with key \"\(keys[keyIndex].keyID)\"")
            }
        }
    }
}
