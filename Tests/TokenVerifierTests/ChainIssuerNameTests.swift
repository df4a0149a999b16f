import Testing

@testable import TokenVerifier

/// SPEC §3b, check 8: which `iss` names a chain's leaf (`ChainKey.names`). A subjectAltName URI
/// equal to it; a dNSName equal to it or to the host of an `https` URL, the authority parsed by RFC
/// 3986 (it ends at the first "/", "?" or "#"; userinfo never binds; an optional ":port" of digits;
/// an IPv6 literal never binds); an empty name or an empty `iss` never binds.
@Suite struct ChainIssuerNameTests {
    /// A chain key whose leaf names `uris` and `dnsNames` (the key itself is never used here).
    static func key(uris: [String] = [], dnsNames: [String]) throws -> ChainKey {
        let leaf = LeafKey.ed25519([UInt8](repeating: 7, count: 32))
        let chain = TrustedChain(
            key: leaf, environment: nil, notBefore: 0, notAfter: 1, uris: uris, dnsNames: dnsNames,
            thumbprints: [[UInt8](repeating: 1, count: 32)], leafSubject: "CN=Leaf", certificates: [])
        let objects = try #require(LeafKeys(limit: 0).objects(for: leaf))
        return ChainKey(chain, objects: objects, signatureCache: nil)
    }

    @Test func theReviewedCaseDoesNotBind() throws {
        let key = try Self.key(dnsNames: ["keys.op.example"])
        #expect(!key.names("https://keys.op.example:@evil.example/"))
        #expect(key.names("https://keys.op.example/"))
    }

    @Test(arguments: [
        "https://keys.op.example",
        "https://keys.op.example/",
        "https://KEYS.Op.Example/path",
        "https://keys.op.example:443/",
        "https://keys.op.example:8443",
        "https://keys.op.example?x=1",
        "https://keys.op.example#frag",
        "https://keys.op.example:/",
        "keys.op.example",
        "KEYS.OP.EXAMPLE",
    ])
    func hostsThatBind(_ issuer: String) throws {
        #expect(try Self.key(dnsNames: ["keys.op.example"]).names(issuer))
    }

    @Test(arguments: [
        "https://keys.op.example:@evil.example/",
        "https://user@keys.op.example/",
        "https://keys.op.example@keys.op.example/",
        "https://:@keys.op.example/",
        "https://keys.op.example:44x3/",
        "https://keys.op.example:443:443/",
        "https://keys.op.example.evil.example/",
        "https://evil.example/keys.op.example",
        "https://[::1]/",
        "https://[keys.op.example]/",
        "https:///keys.op.example",
        "https://",
        "http://keys.op.example/",
        "keys.op.example.",
        "",
    ])
    func authoritiesThatDoNotBind(_ issuer: String) throws {
        #expect(try !Self.key(dnsNames: ["keys.op.example", "::1"]).names(issuer))
    }

    @Test func anEmptyNameOrAnEmptyIssuerNeverBinds() throws {
        let key = try Self.key(uris: [""], dnsNames: [""])
        for issuer in ["", "https://", "https:///", "https://:443/", "https://?", "https://#"] {
            #expect(!key.names(issuer), "\(issuer)")
        }
    }

    @Test func uriNamesBindExactly() throws {
        let key = try Self.key(uris: ["https://op.example/issuer", "urn:op:lock"], dnsNames: [])
        #expect(key.names("https://op.example/issuer"))
        #expect(key.names("urn:op:lock"))
        #expect(!key.names("https://op.example/issuer/"))
        #expect(!key.names("https://op.example/"))
        #expect(!key.names("URN:op:lock"))
    }
}
