import FuzzSupport
import TokenVerifierTesting

@testable import TokenVerifier

/// One certificate's bytes (corpus/FuzzCertificate: good DER certificates, their ECDSA twins, and
/// extreme times) in a fixed good chain under FuzzChain's anchors (a P-256 root and an Ed25519
/// root), as its leaf or its intermediate, validated at a time taken from the input (any Double:
/// NaN, ±infinity, beyond Int64). Traps on a crash, and when:
/// - bytes that are not a certificate's DER are trusted;
/// - a trusted path's identity does not name the certificate as carried, or its ECDSA twin (when
///   that validates too) gets another identity set: a revocation it would escape;
/// - the shared chain cache answers otherwise than a fresh validation at the input's time.
let fuzzDirectory = #filePath.replacingOccurrences(of: "Sources/FuzzCertificate/main.swift", with: "")
let anchors = try! TrustAnchors.load([(path: fuzzDirectory + "Sources/FuzzChain/anchors.pem", environment: nil)])
let good = DERItems.split(try! readFileBytes(fuzzDirectory + "corpus/FuzzChain/p256-chain"))
let trust = ChainTrust(anchors: anchors, options: VerificationOptions(chainCacheEntries: 64))

/// A verdict as comparable text.
func text(_ verdict: ChainVerdict) -> String {
    switch verdict {
    case .trusted(let chain): return "trusted \(chain.thumbprints.map { Base64URL.encodeString($0) })"
    case .untrusted(let failure): return "untrusted \(failure.description)"
    }
}

func text(_ answer: Result<ChainKey, ChainRefusal>, fresh: ChainVerdict) -> String {
    switch answer {
    case .failure(let refusal) where refusal.detail == "the leaf's public key is not a valid Ed25519 or P-256 key":
        // Refused after validation, by the key objects: the fresh verdict is trusted.
        return text(fresh)
    case .success(let key): return "trusted \(key.thumbprints.map { String(decoding: $0, as: UTF8.self) })"
    case .failure(let refusal): return "untrusted \(refusal.detail)"
    }
}

/// The `x5c` of `chain` (standard base64, padded).
func x5c(_ chain: [[UInt8]]) -> [UInt8] {
    let items = chain.map { der -> String in
        var text = String(Base64URL.encodeString(der).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.count % 4 != 0 { text += "=" }
        return "\"" + text + "\""
    }
    return Array(("[" + items.joined(separator: ",") + "]").utf8)
}

runFuzzer { bytes in
    guard let input = CertificateFuzzInput(bytes) else { return }
    let chain = input.chain(replacing: good)
    let position = input.asIntermediate ? 1 : 0
    let value = x5c(chain)
    let answer = value.withUnsafeBufferPointer { trust.key(for: $0, format: .jws, at: input.time, signatureCache: nil) }
    guard let second = ChainTrust.second(of: input.time) else {
        if case .success = answer { preconditionFailure("a chain is trusted at a time beyond ±(2^53 − 1)") }
        return
    }
    let verdict = anchors.validate(chain, at: second)
    precondition(text(answer, fresh: verdict) == text(verdict), "the cache answers as a fresh validation")
    guard case .trusted(let path) = verdict else { return }
    precondition(X509Certificate.encodingFault(input.certificate) == nil, "only DER is trusted")
    let identity = path.certificates[position]
    precondition(identity.thumbprints[0] == Base64URL.encode(sha256(input.certificate)), "names it as carried")
    // Its twins, made from it as OpenSSL decoded it: each that validates has the same identity.
    guard let certificate = X509Certificate(der: input.certificate) else { preconditionFailure("it decodes") }
    for twin in certificate.twins(of: input.certificate, issuedBy: nil) {
        var twinChain = chain
        twinChain[position] = twin
        guard case .trusted(let twinPath) = anchors.validate(twinChain, at: second) else { continue }
        precondition(
            Set(twinPath.certificates[position].thumbprints) == Set(identity.thumbprints),
            "a twin that validates has the same identity set")
        precondition(twinPath.certificates[position].keyThumbprint == identity.keyThumbprint)
    }
}
