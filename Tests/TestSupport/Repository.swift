import Foundation

/// Places in the repository the tests read.
package enum Repository {
    /// The checkout's root.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The demo data, `Data/demo`.
    package static let demo = root.appendingPathComponent("Data/demo")

    /// A file or folder of the published test vectors kept in `Tests/Vectors` (each folder's README
    /// names its source and licence), e.g. `vectors("wycheproof/ed25519_test.json")`.
    package static func vectors(_ path: String) -> URL {
        root.appendingPathComponent("Tests/Vectors").appendingPathComponent(path)
    }

    /// The inputs the fuzzer `harness` kept in `Fuzz/corpus`, in name order.
    package static func fuzzCorpus(_ harness: String) throws -> [[UInt8]] {
        let directory = root.appendingPathComponent("Fuzz/corpus").appendingPathComponent(harness)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}
