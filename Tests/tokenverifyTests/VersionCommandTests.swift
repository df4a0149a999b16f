import Foundation
import TestSupport
import Testing
import TokenVerifier

/// `tokenverify version`: the version, each algorithm's signature path and why, the libraries;
/// and the same paths in verify's metrics file, under verify's own `--table-memory`.
@Suite struct VersionCommandTests {
    @Test func theJSONNamesEachAlgorithmsPathAndTheLibraries() throws {
        let result = try Tool.run(["version", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(result.answers.first)
        #expect(result.lines.count == 1 && answer["version"] as? String == "0.1.0", "\(result.stdout)")
        let paths = try #require(answer["signature_paths"] as? [[String: String]], "\(result.stdout)")
        #expect(paths.map { $0["algorithm"] } == ["ES256", "Ed25519"])
        let expected = SignaturePath.inUse().map {
            ["algorithm": $0.algorithm, "path": $0.path.rawValue, "reason": $0.reason]
        }
        #expect(paths == expected, "the binary's paths are the library's")
        let libraries = try #require(answer["libraries"] as? [[String: String]], "\(result.stdout)")
        #expect(libraries.map { $0["name"] } == ["libsodium", "OpenSSL"])
        #expect(libraries.allSatisfy { !($0["compiled"] ?? "").isEmpty && !($0["running"] ?? "").isEmpty })
    }

    @Test func theTextHasALinePerAlgorithmAndLibrary() throws {
        let result = try Tool.run(["version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first == "tokenverify 0.1.0")
        #expect(result.lines.dropFirst().prefix(2).map { $0.prefix(while: { $0 != ":" }) } == ["ES256", "Ed25519"])
        #expect(result.lines.contains { $0.hasPrefix("libsodium ") && $0.contains("(compiled against ") })
        #expect(result.lines.contains { $0.hasPrefix("OpenSSL ") && $0.contains("(compiled against ") })
        let flag = try Tool.run(["--version"])
        #expect(flag.lines == [result.lines[0]], "--version prints the same version")
    }

    /// verify's metrics carry `tokenverify_signature_path` for its own options: Ed25519 turned off
    /// with `--table-memory ed25519=0` is the standard path, with that reason.
    @Test func theMetricsCarryThePathsUnderVerifysOptions() throws {
        try ExternalRequirement.require(
            SignaturePath.inUse().allSatisfy { $0.path != .standard }, "the signature tables are off on this build")
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let result = try Tool.run(
            workspace.verifyArguments + ["--table-memory", "ed25519=0", "--metrics-file", metrics],
            input: workspace.token() + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let file = try MetricsText(file: metrics)
        let samples = file.all("tokenverify_signature_path")
        #expect(samples.count == 2 && samples.allSatisfy { $0.value == 1 }, "\(samples)")
        let byAlgorithm = Dictionary(uniqueKeysWithValues: samples.map { ($0.labels["algorithm"] ?? "", $0.labels) })
        #expect(["tables", "wide"].contains(byAlgorithm["ES256"]?["path"] ?? ""), "\(samples)")
        #expect(byAlgorithm["Ed25519"]?["path"] == "standard", "\(samples)")
        #expect(byAlgorithm["Ed25519"]?["reason"]?.contains("--table-memory ed25519=0") == true, "\(samples)")
        #expect(file.types["tokenverify_signature_path"] == "gauge")
    }

    /// `TOKENVERIFY_SIGNATURE_PATH` caps the path (spec §2): `tables` keeps the wide path off,
    /// `standard` puts every key on the library's call (both algorithms, named in the reason), and
    /// a value that names no path stops start-up naming it.
    @Test func theEnvironmentCapsThePath() throws {
        func paths(_ value: String) throws -> (status: Int32, paths: [String], text: String) {
            var environment = ProcessInfo.processInfo.environment
            environment[SignaturePathCap.variable] = value
            let run = try ProcessRunner.run(Tool.binary, ["version"], environment: environment)
            let text = String(decoding: run.stdout + run.stderr, as: UTF8.self)
            let lines = text.split(separator: "\n").filter { $0.hasPrefix("ES256: ") || $0.hasPrefix("Ed25519: ") }
            return (run.status, lines.map { String($0.split(separator: " ")[1]) }, text)
        }
        let standard = try paths("standard")
        #expect(standard.status == 0 && standard.paths == ["standard", "standard"], "\(standard.text)")
        #expect(standard.text.contains("TOKENVERIFY_SIGNATURE_PATH=standard"))
        let tables = try paths("tables")
        #expect(tables.status == 0 && !tables.paths.contains("wide"), "\(tables.text)")
        let wrong = try paths("fastest")
        #expect(wrong.status == 2 && wrong.paths.isEmpty, "\(wrong.text)")
        #expect(wrong.text.contains("TOKENVERIFY_SIGNATURE_PATH=fastest: must be one of wide, tables, standard"))
    }
}
