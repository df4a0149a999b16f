import Foundation
import TestSupport
import TokenFetch
import TokenTools
import TokenVerifier

/// A publisher, an output directory and keys, for one test.
struct FetchFixture {
    let publisher: HTTPSPublisher
    let out: String
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
    let es = SigningKey.generate(algorithm: .es256, keyID: "es-1")

    init() throws {
        publisher = try HTTPSPublisher()
        out = publisher.directory.appendingPathComponent("out").path
    }

    /// A fetcher for `out` trusting the test CA (unless `trustTestCA` is false).
    func fetcher(trustTestCA: Bool = true, timeout: Double = 5) throws -> Fetcher {
        try Fetcher(
            configuration: FetchConfiguration(
                directory: out, caFile: trustTestCA ? publisher.caFile : nil,
                timeout: timeout))
    }

    func keysTarget(_ name: String) throws -> FetchTarget { try FetchTarget(kind: .keys, url: publisher.url(name)) }

    /// The contents of a target's file, or nil when there is none.
    func file(_ target: FetchTarget) -> String? {
        FileManager.default.contents(atPath: "\(out)/\(target.kind.folder)/\(target.fileName)")
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every name in the output's folders that starts with a dot (temporary files left behind).
    func dotfiles() -> [String] {
        ["keys", "status-lists"].flatMap { folder in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(out)/\(folder)")) ?? []
            return names.filter { $0.hasPrefix(".") }
        }
    }

    static func jwks(_ keys: SigningKey...) -> String { "{\"keys\":[\(keys.map(\.publicJWK).joined(separator: ","))]}" }
}

/// Fetches one target and returns its report.
func fetchOne(_ fetcher: Fetcher, _ target: FetchTarget) -> FetchReport {
    fetcher.fetch([target])[0]
}

extension FetchReport.Outcome {
    var failure: String? {
        if case .failed(let why) = self { return why }
        return nil
    }
    var isUpdated: Bool {
        if case .updated = self { return true }
        return false
    }
    var isUnchanged: Bool {
        if case .unchanged = self { return true }
        return false
    }
}
