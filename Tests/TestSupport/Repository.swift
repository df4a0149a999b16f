import Foundation

/// Places in the repository the tests read.
public enum Repository {
    /// The checkout's root.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The demo data, `Data/demo`.
    public static let demo = root.appendingPathComponent("Data/demo")

    /// A file or folder of the published test vectors kept in `Tests/Vectors` (each folder's README
    /// names its source and licence), e.g. `vectors("wycheproof/ed25519_test.json")`.
    public static func vectors(_ path: String) -> URL {
        root.appendingPathComponent("Tests/Vectors").appendingPathComponent(path)
    }

    /// The inputs the fuzzer `harness` kept in `Fuzz/corpus`, in name order.
    public static func fuzzCorpus(_ harness: String) throws -> [[UInt8]] {
        let directory = root.appendingPathComponent("Fuzz/corpus").appendingPathComponent(harness)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}
