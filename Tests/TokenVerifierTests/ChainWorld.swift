import Foundation

@testable import TokenVerifier

/// The certificates of the chain tests, made once with the openssl command line (ChainFactory).
/// Times are seconds from `t0` (2026-01-01T00:00:00Z).
final class ChainWorld: @unchecked Sendable {
    static let t0: Int64 = 1_767_225_600
    static let day: Int64 = 86400
    /// Inside every validity window of the world's good paths.
    static let now = t0 + 30 * day

    static let shared: Result<ChainWorld, Error> = Result { try ChainWorld() }

    let factory: ChainFactory
    private(set) var certificates: [String: ChainFactory.Issued] = [:]

    private init() throws {
        factory = try ChainFactory()
        try makeHierarchies()
        try makeFaults()
    }

    subscript(_ name: String) -> ChainFactory.Issued { certificates[name]! }

    /// The DER chain of the named certificates, leaf first.
    func chain(_ names: String...) -> [[UInt8]] { names.map { self[$0].der } }

    func anchors(_ names: String..., environment: Environment? = nil) throws -> TrustAnchors {
        try TrustAnchors.parse(
            pem: Array(names.map { self[$0].pem }.joined().utf8), environment: environment, file: "test.pem")
    }

    private func make(
        _ name: String, _ subject: String, key: ChainFactory.KeyKind, by issuer: String?,
        from notBefore: Int64, to notAfter: Int64, _ extensions: [String]
    ) throws {
        certificates[name] = try factory.certificate(
            name, subject: subject, key: key, issuer: issuer, notBefore: Self.t0 + notBefore,
            notAfter: Self.t0 + notAfter, extensions: extensions)
    }

    private func makeHierarchies() throws {
        let d = Self.day
        // P-256 throughout: root → intermediate → leaf (the measured 3-certificate chain).
        try make(
            "rootP256", "/O=Op/CN=Root P-256", key: .p256, by: nil, from: 0, to: 3650 * d, ChainFactory.ca(root: true))
        try make(
            "intP256", "/O=Op/CN=Int P-256", key: .p256, by: "rootP256", from: d, to: 1800 * d,
            ChainFactory.ca(pathLength: 0))
        try make(
            "leafP256", "/O=Op/CN=Leaf P-256", key: .p256, by: "intP256", from: 2 * d, to: 365 * d,
            ChainFactory.leaf(uris: ["https://op.example/"], dns: ["op.example", "api.op.example"]))
        // RSA root → P-384 intermediate → Ed25519 leaf.
        try make("rootRSA", "/O=Op/CN=Root RSA", key: .rsa, by: nil, from: 0, to: 3650 * d, ChainFactory.ca(root: true))
        try make(
            "intP384", "/O=Op/CN=Int P-384", key: .p384, by: "rootRSA", from: 3 * d, to: 1000 * d, ChainFactory.ca())
        try make(
            "leafEd", "/O=Op/CN=Leaf Ed25519", key: .ed25519, by: "intP384", from: 4 * d, to: 200 * d,
            ChainFactory.leaf(uris: ["urn:op:lock-server"], keyUsage: nil))
        // Ed25519 root → Ed25519 leaf.
        try make(
            "rootEd", "/O=Op/CN=Root Ed25519", key: .ed25519, by: nil, from: 0, to: 3650 * d,
            ChainFactory.ca(root: true))
        try make(
            "leafUnderEd", "/CN=Leaf under Ed25519", key: .p256, by: "rootEd", from: d, to: 100 * d,
            ChainFactory.leaf(dns: ["ed.example"]))
        try make("intEd", "/CN=Int Ed25519", key: .ed25519, by: "rootEd", from: d, to: 1000 * d, ChainFactory.ca())
        try make(
            "leafEdEd", "/CN=Leaf Ed25519 under Ed25519", key: .ed25519, by: "intEd", from: d, to: 100 * d,
            ChainFactory.leaf())
        // A root nobody trusts.
        try make(
            "rootOther", "/O=Other/CN=Root", key: .p256, by: nil, from: 0, to: 3650 * d, ChainFactory.ca(root: true))
        try make(
            "leafOther", "/O=Other/CN=Leaf", key: .p256, by: "rootOther", from: d, to: 100 * d, ChainFactory.leaf())
    }

    private func makeFaults() throws {
        let d = Self.day
        try make("intNotCA", "/CN=Not a CA", key: .p256, by: "rootP256", from: d, to: 300 * d, ChainFactory.leaf())
        try make(
            "leafOfNotCA", "/CN=Leaf of not a CA", key: .p256, by: "intNotCA", from: d, to: 300 * d, ChainFactory.leaf()
        )
        try make(
            "intNoCertSign", "/CN=CA without keyCertSign", key: .p256, by: "rootP256", from: d, to: 300 * d,
            [
                "basicConstraints = critical,CA:TRUE", "keyUsage = critical,digitalSignature",
                "subjectKeyIdentifier = hash", "authorityKeyIdentifier = keyid",
            ])
        try make(
            "leafOfNoCertSign", "/CN=Leaf of no certSign", key: .p256, by: "intNoCertSign", from: d, to: 300 * d,
            ChainFactory.leaf())
        // intP256 has pathlen:0, so a CA under it makes the path too long.
        try make(
            "intUnderPathLen0", "/CN=Int under pathlen 0", key: .p256, by: "intP256", from: d, to: 300 * d,
            ChainFactory.ca())
        try make(
            "leafTooDeep", "/CN=Leaf too deep", key: .p256, by: "intUnderPathLen0", from: d, to: 300 * d,
            ChainFactory.leaf())
        try make(
            "leafCritical", "/CN=Leaf critical", key: .p256, by: "rootP256", from: d, to: 300 * d,
            ChainFactory.leaf() + ["1.3.6.1.4.1.55555.1 = critical,ASN1:UTF8String:unknown"])
        try make(
            "leafRSA", "/CN=Leaf RSA", key: .rsa, by: "rootP256", from: d, to: 300 * d, ChainFactory.leaf(keyUsage: nil)
        )
        try make("leafP384", "/CN=Leaf P-384", key: .p384, by: "rootP256", from: d, to: 300 * d, ChainFactory.leaf())
        try make(
            "leafNoDigitalSignature", "/CN=Leaf without digitalSignature", key: .p256, by: "rootP256", from: d,
            to: 300 * d, ChainFactory.leaf(keyUsage: "critical,nonRepudiation"))
        try make(
            "rootExpiring", "/CN=Root expiring", key: .p256, by: nil, from: 0, to: 20 * d, ChainFactory.ca(root: true))
        try make(
            "leafOfExpiring", "/CN=Leaf of expiring", key: .ed25519, by: "rootExpiring", from: d, to: 300 * d,
            ChainFactory.leaf())
        try makeLongChain()
    }

    /// rootLong → long1 … long7 → leafLong{1…7}: leafLongN's path holds N + 2 certificates.
    private func makeLongChain() throws {
        let d = Self.day
        try make("rootLong", "/CN=Root long", key: .p256, by: nil, from: 0, to: 3650 * d, ChainFactory.ca(root: true))
        var issuer = "rootLong"
        for level in 1...7 {
            try make(
                "long\(level)", "/CN=Int \(level)", key: .p256, by: issuer, from: d, to: 3000 * d, ChainFactory.ca())
            try make(
                "leafLong\(level)", "/CN=Leaf \(level)", key: .ed25519, by: "long\(level)", from: d, to: 300 * d,
                ChainFactory.leaf())
            issuer = "long\(level)"
        }
    }

    /// The chain leafLongN, longN … long1 (N + 1 certificates; the root is the anchor).
    func longChain(_ level: Int) -> [[UInt8]] {
        [self["leafLong\(level)"].der] + (1...level).reversed().map { self["long\($0)"].der }
    }

    /// The SubjectPublicKeyInfo DER of a key file (its last bytes are the raw key).
    func publicKeyInfo(_ name: String) throws -> [UInt8] {
        let out = factory.path("\(name).pub.der")
        try factory.run(["pkey", "-in", factory.path("\(name).key"), "-pubout", "-outform", "DER", "-out", out])
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }
}
