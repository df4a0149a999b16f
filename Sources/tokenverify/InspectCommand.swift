import ArgumentParser
import Foundation
import TokenEncoding
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify inspect`: decode a token without verifying it.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a token's header and claims, plainly marked UNVERIFIED.",
            discussion: """
                Nothing is checked: not the signature, not the key, not the time. Use verify for that.

                A Status List Token (typ statuslist+jwt or application/statuslist+cwt) also shows "status_list_entries": its URI, bits, number of entries and every non-zero entry {"idx", "status"}.

                A token without a dot is read as a CWT (base64url of a COSE_Sign1 message, spec §2b): its protected and unprotected headers and its claims are written as JSON, with known labels named ("alg (1)", "kid (4)", "iss (1)", "cti (7)"), byte strings as base64url and tags as {"tag": N, "value": …}.
                """
        )

        @Argument(help: "The compact token or CWT (default: the first line of standard input).")
        var token: String?

        func run() throws {
            var text = token ?? ""
            if token == nil || token == "-" {
                text =
                    String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                    .split(separator: "\n").first.map(String.init) ?? ""
            }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let segments = text.split(separator: ".", omittingEmptySubsequences: false)
            let entries = (Self.statusListEntries(text) ?? []) + (Self.chain(text) ?? [])
            if segments.count == 1 { return Self.inspectCWT(text, statusList: entries) }
            guard segments.count == 3 else {
                ConfigurationError(
                    description:
                        "not a compact token: expected three segments separated by dots, found \(segments.count)"
                ).exit()
            }
            var writer = JSONWriter()
            writer.raw("{\"UNVERIFIED\":\"nothing was checked: not the signature, the key, the time or revocation\"")
            for (name, segment) in [("header", segments[0]), ("claims", segments[1])] {
                writer.raw(",")
                writer.key(name)
                if let bytes = Base64URL.decode(Array(segment.utf8)) {
                    if JSONValidation.problem(in: bytes) == nil {
                        bytes.withUnsafeBufferPointer { writer.minified($0) }
                    } else {
                        writer.string(String(decoding: bytes, as: UTF8.self))
                        writer.raw(",")
                        writer.key(name + "_problem")
                        writer.string(JSONValidation.problem(in: bytes)!)
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
            print(String(decoding: writer.bytes, as: UTF8.self))
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

        /// Prints a CWT's headers and claims, or exits with why they cannot be read.
        static func inspectCWT(_ text: String, statusList: [UInt8]? = nil) {
            switch CWTInspection.members(of: Array(text.utf8)) {
            case .success(let members):
                var writer = JSONWriter()
                writer.raw(
                    "{\"UNVERIFIED\":\"nothing was checked: not the signature, the key, the time or revocation\",\"format\":\"cwt\","
                )
                writer.raw(members)
                if let statusList { writer.raw(statusList) }
                writer.raw("}")
                print(String(decoding: writer.bytes, as: UTF8.self))
            case .failure(let error):
                ConfigurationError(
                    description:
                        "not a CWT (a token without a dot is base64url of a COSE_Sign1 message): \(error.description)"
                ).exit()
            }
        }
    }
}
