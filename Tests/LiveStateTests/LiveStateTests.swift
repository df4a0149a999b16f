import Foundation
import TestSupport
import Testing
import TokenConcurrency
import TokenTools
import TokenVerifier

@testable import LiveState

/// The live state as a library: the folder rule, the status-list files' rules on reload, and the
/// watcher's rounds, without a running `verify` (the command-line tests drive it end to end).
@Suite struct LiveStateLibraryTests {
    let fixtures = Fixtures()

    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("live-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A directory stands for its regular files in name order, dotfiles left out; a file (even a
    /// missing one) for itself.
    @Test func aDirectoryStandsForItsRegularFiles() throws {
        let directory = try folder()
        for name in ["b.jwks", "a.jwks", ".fetching-c.jwks"] { try write("{}", to: "\(directory)/\(name)") }
        try FileManager.default.createDirectory(atPath: "\(directory)/sub", withIntermediateDirectories: true)
        #expect(
            StatePaths.expand([directory, "/nonexistent"]) == [
                "\(directory)/a.jwks", "\(directory)/b.jwks", "/nonexistent",
            ])
        #expect(StatePaths.isDirectory(directory) && !StatePaths.isDirectory("\(directory)/a.jwks"))
    }

    /// A status list refused for want of its key is loaded again when a new key set is put in
    /// force, in the same round, without its file changing (spec §4c "Status fails closed").
    @Test func aNewKeySetLoadsTheListsAgain() throws {
        let directory = try folder()
        let keys = "\(directory)/keys.jwks"
        let lists = "\(directory)/lists"
        try FileManager.default.createDirectory(atPath: lists, withIntermediateDirectories: true)
        try write("{\"keys\":[\(fixtures.ed.publicJWK)]}", to: keys)
        let warnings = LockedValue<[String]>([])
        let files = LiveStateFiles(
            keys: [keys], statusLists: [lists], warn: { line in warnings.withLock { $0.append(line) } })
        let verifier = try files.makeVerifier(options: VerificationOptions(checkTime: Fixtures.now))
        try write(Fixtures.statusListToken(fixtures.es, statuses: [1: 1]), to: "\(lists)/sl.jwt")
        let watcher = LiveStateWatcher(
            verifier: verifier, sources: files.sources, interval: 0,
            log: { line in warnings.withLock { $0.append(line) } })
        watcher.reload(files.sources.filter { $0.name == "status lists" }.map { ($0, "test") })
        #expect(verifier.statusLists?.count == 0)
        #expect(warnings.withLock { $0 }.contains { $0.contains("status list not loaded") })
        try write("{\"keys\":[\(fixtures.ed.publicJWK),\(fixtures.es.publicJWK)]}", to: keys)
        watcher.reload(files.sources.filter { $0.name == "keys" }.map { ($0, "test") })
        #expect(verifier.statusLists?.count == 1, "\(warnings.withLock { $0 })")
        #expect(warnings.withLock { $0 }.contains { $0.contains("status lists reloaded (key set changed): 1 list") })
    }

    /// A key file replaced while the state was loading (after the baseline, before the watcher)
    /// is reloaded at the watcher's first polls (a watcher that read the files only when it was
    /// made took the new file for the one loaded and never reloaded it).
    @Test func aFileReplacedWhileLoadingIsReloaded() throws {
        let directory = try folder()
        let keys = "\(directory)/keys.jwks"
        try write("{\"keys\":[\(fixtures.ed.publicJWK)]}", to: keys)
        let lines = LockedBox<[String]>([])
        let files = LiveStateFiles(keys: [keys], warn: { line in lines.update { $0.append(line) } })
        let baseline = LiveStateWatcher.baseline(of: files.sources)
        let verifier = try files.makeVerifier(options: VerificationOptions(checkTime: Fixtures.now))
        try write("{\"keys\":[\(fixtures.ed.publicJWK),\(fixtures.es.publicJWK)]}", to: keys + ".new")
        #expect(rename(keys + ".new", keys) == 0)
        let watcher = LiveStateWatcher(
            verifier: verifier, sources: files.sources, interval: 0.01, baseline: baseline,
            log: { line in lines.update { $0.append(line) } })
        ServiceGroup([watcher]).run { _ in
            let reloaded = lines.wait { $0.contains { $0.contains("keys reloaded") } }
            #expect(reloaded.met, "\(reloaded.last)")
        }
        #expect(verifier.keys.keys.count == 2)
    }
}
