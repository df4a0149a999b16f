/// Check 12 (`bad_signature`): the signature over `header.payload` (a CWT's Sig_structure) verifies with the key found
/// by check 5, through libsodium (Ed25519) or OpenSSL (ES256), with the key's precomputed table once it is built. Runs only when check 6 found that
/// the key fits. Consults the signature cache first, when there is one: its entries are keyed by
/// the whole token and the key's identity, so no other token, and no other key material, can hit
/// an entry. In a batch, the batch engine may have done both already (``CheckInput/signatureVerdict``).
struct SignatureCheck: TokenCheck {
    func check(
        _ parsed: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard findings.keyFits, let facts = findings.keyFacts(input) else { return }
        let cacheKey = input.signatureCacheKey
        // A token with an inverse or a verdict was looked up by its batch already (a miss).
        if let cacheKey, input.signatureInverse == nil, input.signatureVerdict == nil,
            input.withState({ $0.signatureCache!.contains(cacheKey) })
        {
            input.crypto.signatureCacheHits &+= 1
            return
        }
        if cacheKey != nil { input.crypto.signatureCacheMisses &+= 1 }
        let verified =
            input.signatureVerdict
            ?? parsed.withSignedMessage(compact: input.compact) { message in
                parsed.withBytes(parsed.signature) { signature in
                    switch facts.type {
                    case .ed25519:
                        // Borrowed from the key set for the call: no reference count taken.
                        return facts.ed25519!._withUnsafeGuaranteedRef {
                            $0.verify(signature: signature, message: message)
                        }
                    case .p256:
                        if let keyIndex = findings.keyIndex {
                            return input.crypto.p256Context(for: keyIndex, in: input.state).verify(
                                signature: signature, message: message, inverse: input.signatureInverse)
                        }
                        return Self.verifyWithChain(findings, signature, message, input)
                    }
                }
            }
        if verified {
            if let cacheKey { input.withState { $0.signatureCache!.insert(cacheKey) } }
        } else {
            let expected =
                facts.type == .ed25519 ? "a 64-byte Ed25519 signature" : "a 64-byte r‖s ES256 signature"
            if parsed.signature.count != 64 {
                failures.add(.badSignature, "the signature is \(parsed.signature.count) bytes; expected \(expected)")
            } else {
                failures.add(.badSignature, "the signature does not verify with \(findings.keyDescription(input))")
            }
        }
    }

    /// A P-256 chain key's verify (out of line: the key set's keys are the common case).
    @inline(never)
    private static func verifyWithChain(
        _ findings: CheckFindings, _ signature: UnsafeBufferPointer<UInt8>, _ message: UnsafeBufferPointer<UInt8>,
        _ input: CheckInput
    ) -> Bool {
        guard let chain = findings.chainKey else { return false }
        return input.crypto.p256Context(for: chain).verify(
            signature: signature, message: message, inverse: input.signatureInverse)
    }
}
