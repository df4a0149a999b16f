import Testing
import TokenFetch

@Suite struct FetchTargetTests {
    @Test(arguments: [
        "http://op.example/jwks", "HTTP://op.example/jwks", "ftp://op.example/jwks", "file:///etc/passwd",
        "op.example/jwks", "https:///jwks", "https://op.example/a b", "",
    ])
    func onlyHTTPSURLsAreTargets(url: String) {
        #expect(throws: FetchUsageError.self) { try FetchTarget(kind: .keys, url: url) }
    }

    @Test func theFileNameIsSafeStableAndDistinct() throws {
        let a = try FetchTarget(kind: .keys, url: "https://op.example:8443/.well-known/jwks.json?v=1")
        let again = try FetchTarget(kind: .keys, url: "https://op.example:8443/.well-known/jwks.json?v=1")
        #expect(a.fileName == again.fileName)
        #expect(a.fileName.hasPrefix("op.example_8443_.well-known_jwks.json_v_1-"))
        let b = try FetchTarget(kind: .keys, url: "https://op.example:8443/.well-known/jwks.json?v=2")
        let c = try FetchTarget(kind: .keys, url: "https://op.example:8443/.well-known/jwks.json?v_1")
        #expect(Set([a.fileName, b.fileName, c.fileName]).count == 3)
        let hostile = try FetchTarget(
            kind: .statusList,
            url: "https://../../etc/passwd/%2e%2e/" + String(repeating: "x", count: 300))
        #expect(!hostile.fileName.hasPrefix(".") && !hostile.fileName.contains("/") && hostile.fileName.count <= 117)
    }
}
