import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// A temporary directory with key files and tokens made by the library's signer.
struct Workspace {
    let directory: URL
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
    let es = SigningKey.generate(algorithm: .es256, keyID: "es-1")
    let prod = SigningKey.generate(algorithm: .ed25519, keyID: "prod-1", environment: .production, issuer: "operator-a")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokenverify-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write("keys.jwks", "{\"keys\":[\(ed.publicJWK),\(es.publicJWK),\(prod.publicJWK)]}")
        try write("revocations.jsonl", "")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        return path(name)
    }

    /// Replaces a file the way a back office should: write a new file, rename it into place.
    func replace(_ name: String, _ text: String) throws {
        let temporary = directory.appendingPathComponent(name + ".new")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, path(name)) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static let checkTime = "1800000000"

    static func claims(_ overrides: [String: String?] = [:]) -> String {
        var members: [(String, String)] = [
            ("iss", "\"operator-a\""), ("sub", "\"phone-1\""), ("aud", "\"car-1\""), ("jti", "\"t-1\""),
            ("iat", "1799990000"), ("exp", "1800003600"), ("ch", "[\"ble\",\"nfc\"]"), ("cmd", "[\"unlock\",\"lock\"]"),
        ]
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    func token(_ key: SigningKey? = nil, claims: String = Workspace.claims(), header: String? = nil) -> String {
        let key = key ?? ed
        if let header { return key.sign(header: Array(header.utf8), claims: Array(claims.utf8)) }
        return key.sign(claims: Array(claims.utf8))
    }

    var verifyArguments: [String] {
        ["verify", "--keys", path("keys.jwks"), "--revocations", path("revocations.jsonl"), "--at", Self.checkTime]
    }
}

func b64(_ text: String) -> String { Base64URL.encodeString(Array(text.utf8)) }

/// The rule for tests that need something from outside the package (a minter such as PyJWT or
/// jose, a test-vector file): where it is missing, the test is skipped with the reason, never
/// passed; where the environment variable CI is set (CI=true), a skip fails instead, so that CI
/// cannot go green without running it.
enum External {
    /// Returns when `available`; otherwise skips the running test with `reason` (in CI: fails it).
    static func require(
        _ available: Bool, _ reason: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try ExternalRequirement.require(available, reason(), sourceLocation: sourceLocation)
    }

    /// Runs a program to completion: exit status, stdout and stderr.
    @discardableResult
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data()
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: executable), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            feed: { try? $0.write(contentsOf: input) })
        return (
            result.status, String(decoding: result.stdout, as: UTF8.self),
            String(decoding: result.stderr, as: UTF8.self)
        )
    }

    /// The interop Python (the venv scripts/install-dependencies makes), when it exists.
    static let python: String = Tool.repository.appendingPathComponent(".venv-interop/bin/python").path

    /// Why `python` cannot import `module`, or nil when it can.
    static func pythonProblem(_ module: String) -> String? {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "no interop Python at .venv-interop (run scripts/install-dependencies)"
        }
        guard let result = try? run(python, ["-c", "import \(module)"]) else { return "cannot start \(python)" }
        return result.status == 0
            ? nil
            : "the Python package \(module) cannot be imported: \(result.stderr.split(separator: "\n").last ?? "")"
    }
}
