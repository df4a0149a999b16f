import Atomics

/// A validated chain as a signing key (spec §3b): the leaf's public key with the key objects and
/// per-key tables of any key, the anchor's environment, the leaf's names, the path's thumbprints
/// and the interval in which the path validates. Immutable; shared by the chain cache and the
/// tokens checked with it.
// Immutable after init; `facts` and `text` point into storage it owns and frees.
final class ChainKey: @unchecked Sendable {
    /// The leaf's key as a key of no key set: `kid` is the leaf's `x5t#S256`, `env` the anchor's.
    let key: VerificationKey
    /// What the checks read of it, pointing into ``text``.
    let facts: KeyFacts
    /// The validated path, leaf first, anchor last.
    let chain: TrustedChain
    /// Each certificate's `x5t#S256` (base64url SHA-256 of its DER as carried), leaf first, as UTF-8.
    let thumbprints: [[UInt8]]
    /// Each certificate of the path as revocations name it (every encoding's `x5t#S256`, and its
    /// key's `spki#S256`), leaf first, anchor last: computed once, when the chain was validated.
    let certificates: [CertificateIdentity]
    /// The signature cache's identity of the key material (as a key set's keys have one).
    let identity: KeyedHash.Digest?
    /// The leaf's subjectAltName URIs and dNSNames, UTF-8 (check 8 compares `iss` with them).
    private let uris: [[UInt8]]
    private let dnsNames: [[UInt8]]
    private let text: UnsafeMutableBufferPointer<UInt8>
    /// Whether the chain cache gave the leaf key its table budgets (on the chain's first reuse,
    /// ``ChainCache/armTables(_:)``): a key seen once never takes a table.
    let tablesArmed = ManagedAtomic<Bool>(false)

    /// The key of `chain`, whose leaf key's objects are `objects` (``LeafKeys``).
    init(_ chain: TrustedChain, objects: LeafKeys.Objects, signatureCache: SignatureCache?) {
        let (p256, ed25519) = (objects.p256, objects.ed25519)
        let type: KeyType
        let publicKey: [UInt8]
        switch chain.key {
        case .ed25519(let bytes): (type, publicKey) = (.ed25519, bytes)
        case .p256(let x, let y): (type, publicKey) = (.p256, x + y)
        }
        thumbprints = chain.thumbprints.map { Base64URL.encode($0) }
        certificates = chain.certificates
        let keyID = String(decoding: thumbprints.first ?? [], as: UTF8.self)
        key = VerificationKey(
            keyID: keyID, type: type, algorithm: nil, environment: chain.environment, issuer: nil,
            publicKeyBytes: publicKey, p256: p256, ed25519: ed25519)
        text = .allocate(capacity: max(1, keyID.utf8.count))
        _ = text.initialize(from: keyID.utf8)
        facts = KeyFacts(
            type: type, algorithm: nil, environment: chain.environment,
            keyID: UnsafeBufferPointer(rebasing: text[..<keyID.utf8.count]), issuer: nil,
            keyThumbprint: UnsafeBufferPointer(rebasing: text[keyID.utf8.count..<keyID.utf8.count]),
            ed25519: ed25519.map { Unmanaged.passUnretained($0) })
        self.chain = chain
        uris = chain.uris.map { Array($0.utf8) }
        dnsNames = chain.dnsNames.map { Array($0.utf8) }
        identity = signatureCache?.identity(of: key)
    }

    deinit { text.deallocate() }

    /// Whether the path validates at `time` (its every certificate within its validity): the
    /// joint interval's whole seconds validate, and so does every fraction of its last one.
    @inline(__always)
    func isValid(at time: Double) -> Bool {
        Double(chain.notBefore) <= time && time < Double(chain.notAfter) + 1
    }

    /// The leaf, for a detail: `certificate "CN=…" (x5t#S256 …)`.
    var leafDescription: String {
        "certificate \"\(chain.leafSubject)\" (x5t#S256 \(key.keyID))"
    }

    /// Whether `issuer` (a token's `iss`, UTF-8) names the leaf: one of its subjectAltName URIs or
    /// dNSNames, or an `https` URL whose host is one of its dNSNames (DNS names compared without
    /// regard to ASCII case). An empty name or an empty `iss` never binds. Compared byte for byte:
    /// nothing allocated per token.
    func names(_ issuer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !issuer.isEmpty else { return false }
        if uris.contains(where: { $0.elementsEqual(issuer) }) { return true }
        if dnsNames.contains(where: { Self.sameHost($0, issuer[...]) }) { return true }
        guard let host = Self.httpsHost(issuer) else { return false }
        return dnsNames.contains { Self.sameHost($0, host) }
    }

    /// The host of an `https` URL as RFC 3986 reads it, when it may name a dNSName: the authority
    /// ends at the first "/", "?" or "#"; one with userinfo ("@") gives none, as does an IPv6 or
    /// other bracketed literal; an optional ":port" of digits only is dropped; an empty host is none.
    static func httpsHost(_ issuer: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard issuer.count > https.count, issuer.starts(with: https) else { return nil }
        let rest = issuer[https.count...]
        let end = rest.firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? rest.endIndex  // / ? #
        let authority = rest[..<end]
        guard !authority.contains(0x40), authority.first != 0x5B else { return nil }  // @ [
        var host = authority
        if let colon = authority.firstIndex(of: 0x3A) {  // :
            let port = authority[(colon + 1)...]
            guard port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            host = authority[..<colon]
        }
        return host.isEmpty ? nil : host
    }

    /// ``names(_:)`` of a String.
    func names(_ issuer: String) -> Bool {
        var issuer = issuer
        return issuer.withUTF8 { names($0) }
    }

    private static let https = Array("https://".utf8)

    /// Whether a dNSName and a host are the same without regard to ASCII case (an empty name is none).
    private static func sameHost(_ name: [UInt8], _ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard !name.isEmpty else { return false }
        func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return name.count == host.count && zip(name, host).allSatisfy { folded($0) == folded($1) }
    }
}
