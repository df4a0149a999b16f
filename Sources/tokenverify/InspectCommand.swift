import ArgumentParser
import Foundation
import TokenFormats
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify inspect`: decode tokens without verifying them.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a JWS or CWT's header and claims, marked UNVERIFIED: a token, a file of them, or stdin.",
            discussion: """
                Nothing is checked: not the signature, not the key, not the time. Use verify for that.

                What is read: - (or no argument) reads standard input; an argument that names an existing file reads that file (a regular file or a FIFO; a folder is refused); anything else is one token. Standard input and files give one JSON line for each non-blank line, in order; a line that is not a token is named on stderr (FILE:LINE) and skipped, and the exit status is then 1. A token argument that cannot be decoded exits with status 2.

                A Status List Token (typ statuslist+jwt or application/statuslist+cwt) also shows "status_list_entries": its URI, bits, number of entries and every non-zero entry {"idx", "status"}.

                A token without a dot is read as a CWT (base64url of a COSE_Sign1 message, spec §2b): its protected and unprotected headers and its claims are written as JSON, with known labels named ("alg (1)", "kid (4)", "iss (1)", "cti (7)"), byte strings as base64url and tags as {"tag": N, "value": …}.
                """
        )

        @Argument(
            help: ArgumentHelp(
                "A compact token or CWT, a file of them (one a line), or - for standard input (the default).",
                valueName: "token-or-file"))
        var input: String?

        func run() throws {
            switch InspectInput.resolve(input) {
            case .token(let token):
                switch Self.inspect(token.trimmingCharacters(in: .whitespacesAndNewlines)) {
                case .success(let line): print(line)
                case .failure(let problem):
                    ConfigurationError(description: "\(problem.description) (and no file of that name exists)").exit()
                }
            case .lines(let name, let descriptor):
                var failures = 0
                InspectInput.forEachLine(name: name, descriptor: descriptor) { line, number in
                    let token = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    if token.isEmpty { return }
                    switch Self.inspect(token) {
                    case .success(let line): print(line)
                    case .failure(let problem):
                        printError("tokenverify: \(name):\(number): \(problem.description)")
                        failures += 1
                    }
                }
                if failures > 0 { throw ExitCode(1) }
            }
        }

        /// Why a line could not be decoded.
        struct Problem: Error, CustomStringConvertible {
            var description: String
        }

        /// The JSON line that shows `text` (a compact JWS, or a CWT when it has no dot), or why
        /// it is neither.
        static func inspect(_ text: String) -> Result<String, Problem> {
            let segments = text.split(separator: ".", omittingEmptySubsequences: false)
            let entries = (Self.statusListEntries(text) ?? []) + (Self.chain(text) ?? [])
            if segments.count == 1 { return Self.inspectCWT(text, statusList: entries) }
            guard segments.count == 3 else {
                return .failure(
                    Problem(
                        description:
                            "not a compact token: expected three segments separated by dots, found \(segments.count)"))
            }
            var writer = JSONWriter()
            writer.raw("{\"UNVERIFIED\":\"nothing was checked: not the signature, the key, the time or revocation\"")
            for (name, segment) in [("header", segments[0]), ("claims", segments[1])] {
                writer.raw(",")
                writer.key(name)
                if let bytes = Base64URL.decode(Array(segment.utf8)) {
                    if let problem = JSONValidation.problem(in: bytes) {
                        writer.string(String(decoding: bytes, as: UTF8.self))
                        writer.raw(",")
                        writer.key(name + "_problem")
                        writer.string(problem)
                    } else {
                        bytes.withUnsafeBufferPointer { writer.minified($0) }
                    }
                } else {
                    writer.string(String(segment))
                    writer.raw(",")
                    writer.key(name + "_problem")
                    writer.string("not canonical base64url")
                }
            }
            writer.raw(",\"signature_bytes\":")
            writer.integer(Base64URL.decode(Array(segments[2].utf8))?.count ?? -1)
            writer.raw(entries)
            writer.raw("}")
            return .success(String(decoding: writer.bytes, as: UTF8.self))
        }

        /// For a token that carries a certificate chain (`x5c`, `x5chain`): `,"chain":[…]`, each
        /// certificate's subject, issuer, validity, names and thumbprint (nothing validated), or
        /// why the chain cannot be read.
        static func chain(_ text: String) -> [UInt8]? {
            guard let certificates = ChainInspection.certificates(ofToken: Array(text.utf8)) else { return nil }
            var writer = JSONWriter()
            writer.raw(",\"chain\":")
            switch certificates {
            case .success(let certificates):
                writer.raw("[")
                for (position, certificate) in certificates.enumerated() {
                    if position > 0 { writer.raw(",") }
                    if let certificate {
                        writer.raw(CertificateText.json(certificate))
                    } else {
                        writer.string("certificate \(position + 1) is not a DER X.509 certificate")
                    }
                }
                writer.raw("]")
            case .failure(let error):
                writer.string("cannot be read: \(error.description)")
            }
            return writer.bytes
        }

        /// For a Status List Token (by its typ): `,"status_list_entries":{…}` with its bits, its
        /// number of entries and every non-zero entry, or why its list cannot be read.
        static func statusListEntries(_ text: String) -> [UInt8]? {
            let token = Array(text.utf8)
            guard StatusListInspection.isStatusList(token) else { return nil }
            var writer = JSONWriter()
            writer.raw(",\"status_list_entries\":")
            do {
                let entries = try StatusListInspection.entries(of: token)
                writer.raw("{\"uri\":")
                writer.string(entries.uri)
                writer.raw(",\"bits\":")
                writer.integer(entries.bits)
                writer.raw(",\"entries\":")
                writer.integer(entries.count)
                writer.raw(",\"non_zero\":[")
                for (position, entry) in entries.nonZero.enumerated() {
                    if position > 0 { writer.raw(",") }
                    writer.raw("{\"idx\":")
                    writer.integer(entry.index)
                    writer.raw(",\"status\":")
                    writer.integer(Int(entry.status))
                    writer.raw("}")
                }
                writer.raw("]}")
            } catch {
                writer.string("cannot be read: \(error.message)")
            }
            return writer.bytes
        }

        /// A CWT's headers and claims as a JSON line, or why they cannot be read.
        static func inspectCWT(_ text: String, statusList: [UInt8]? = nil) -> Result<String, Problem> {
            switch CWTInspection.members(of: Array(text.utf8)) {
            case .success(let members):
                var writer = JSONWriter()
                writer.raw(
                    "{\"UNVERIFIED\":\"nothing was checked: not the signature, the key, the time or revocation\",\"format\":\"cwt\","
                )
                writer.raw(members)
                if let statusList { writer.raw(statusList) }
                writer.raw("}")
                return .success(String(decoding: writer.bytes, as: UTF8.self))
            case .failure(let error):
                return .failure(
                    Problem(
                        description:
                            "not a CWT (a token without a dot is base64url of a COSE_Sign1 message): \(error.description)"
                    ))
            }
        }
    }
}
