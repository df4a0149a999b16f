import ArgumentParser
import TokenFormats
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

extension TokenVerify {
    /// `tokenverify version`: the version, the signature path each algorithm takes in this
    /// process and why, and the libraries those paths rest on.
    struct Version: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the version, the signature path per algorithm (wide, tables or standard) and why, and the library versions.",
            discussion: """
                Each algorithm's keys verify through per-key precomputed tables (about three times faster than the library's standard call), through the same tables walked eight signatures at once on a CPU with AVX-512 IFMA (wide: two and a half to three times faster again in a batch), or through the library's standard call (crypto_sign_verify_detached, EVP_PKEY_verify); the verdicts are the same. TOKENVERIFY_SIGNATURE_PATH=tables keeps the wide path off, =standard keeps every key on the standard call. The tables rest on library internals: Ed25519's on libsodium 1.0.18's point functions, ES256's on OpenSSL's EC_GROUP_precompute_mult, and each passes a self-test at start-up. After a library update the reason says what turned a path off. This is the path with the default --table-memory; verify's --metrics-file carries the path under its own options (tokenverify_signature_path).

                Text: the version, then a line per algorithm ("Ed25519: tables (libsodium 1.0.18 internals found, self-test passed)") and a line per library (compiled against, running). With --json, one JSON object: version, signature_paths (algorithm, path, reason), libraries (name, compiled, running).
                """
        )

        /// The version this build is.
        static let number = "0.1.0"

        @Flag(name: .long, help: "One JSON object instead of text.")
        var json = false

        func run() throws {
            let paths = SignaturePath.inUse()
            let libraries = SignatureLibrary.all
            let output = json ? Self.json(paths, libraries) : Self.text(paths, libraries)
            _ = output.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
        }

        static func text(_ paths: [SignaturePath], _ libraries: [SignatureLibrary]) -> String {
            var lines = ["tokenverify \(number)"]
            lines += paths.map(\.description)
            lines += libraries.map { "\($0.name) \($0.running) (compiled against \($0.compiled))" }
            return lines.joined(separator: "\n") + "\n"
        }

        static func json(_ paths: [SignaturePath], _ libraries: [SignatureLibrary]) -> String {
            var writer = JSONWriter()
            writer.raw("{")
            writer.key("version")
            writer.string(number)
            writer.raw(",")
            writer.key("signature_paths")
            writer.raw("[")
            for (index, path) in paths.enumerated() {
                if index > 0 { writer.raw(",") }
                object(&writer, [("algorithm", path.algorithm), ("path", path.path.rawValue), ("reason", path.reason)])
            }
            writer.raw("],")
            writer.key("libraries")
            writer.raw("[")
            for (index, library) in libraries.enumerated() {
                if index > 0 { writer.raw(",") }
                object(&writer, [("name", library.name), ("compiled", library.compiled), ("running", library.running)])
            }
            writer.raw("]}\n")
            return String(decoding: writer.bytes, as: UTF8.self)
        }

        /// Appends an object of string members, in order.
        private static func object(_ writer: inout JSONWriter, _ members: [(String, String)]) {
            writer.raw("{")
            for (index, (name, value)) in members.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(name)
                writer.string(value)
            }
            writer.raw("}")
        }
    }
}
