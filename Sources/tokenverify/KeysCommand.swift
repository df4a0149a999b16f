import ArgumentParser
import Foundation
import LiveState
import TokenFormats
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify keys`: the key-set tool.
    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make and check key sets: import keys from other tools, list what verify loads.",
            subcommands: [Import.self, List.self]
        )
    }
}

extension TokenVerify.Keys {
    /// `tokenverify keys import`: public keys in any common form in, one JWKS out.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read public keys written by other tools and print a JWKS that verify --keys accepts.",
            discussion: """
                Reads PEM (a public key as `openssl pkey -pubout` writes it, or a private key, of which only the public part is kept, with a warning), DER, a bare JWK, a JWKS, or JSON lines of JWKs. Ed25519 and P-256 keys only.

                A key without a kid gets its RFC 7638 thumbprint as kid (or --kid, when one key is read). Every key is checked as verify checks it at start-up; a key that would stop verify stops the import, with the file and key named (exit status 2).

                Example:
                  openssl pkey -in private.pem -pubout > public.pem
                  tokenverify keys import public.pem --env prod > keys.jwks
                """
        )

        @Argument(help: ArgumentHelp("Key files: PEM, DER, JWK or JWKS.", valueName: "file"))
        var files: [String]

        @Option(name: .long, help: "The kid of the one key read (default: the key's own kid, else its thumbprint).")
        var kid: String?

        @Option(name: .long, help: ArgumentHelp("Set env on every key.", valueName: "env"))
        var env: Environment?

        @Option(name: .long, help: "Set iss on every key (tokens it verifies must carry this iss).")
        var iss: String?

        @Option(name: .long, help: ArgumentHelp("Set alg on every key (it must fit the key).", valueName: "alg"))
        var alg: SignatureAlgorithm?

        func validate() throws {
            if files.isEmpty { throw ValidationError("name at least one key file") }
            if let kid, kid.isEmpty { throw ValidationError("--kid must not be empty") }
        }

        func run() throws {
            let inputs = readKeyFiles(files)
            do {
                let imported = try KeyImporter.importKeys(
                    inputs, options: KeyImportOptions(keyID: kid, environment: env, issuer: iss, algorithm: alg))
                for warning in imported.warnings { printError("tokenverify: warning: \(warning)") }
                FileHandle.standardOutput.write(Data(imported.jwks.utf8))
                printError(
                    "tokenverify: imported \(counted(imported.keys.count, "key")): \(imported.keys.map(\.keyID).joined(separator: ", "))"
                )
            } catch {
                ConfigurationError(description: error.description).exit()
            }
        }
    }

    /// `tokenverify keys list`: what verify would load.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keys verify would load from these JWKS files, one a line.",
            discussion: """
                Each line: kid, type/curve, alg, env, iss, RFC 7638 thumbprint and file, separated by tabs ("-" where a member is absent). With --trust-anchors, a line per anchor certificate too: "anchor", env, subject, issuer, not before, not after, names, x5t#S256, CA or end entity, key and file. With --json, one JSON object a line. Files that verify would refuse are refused the same way, with the same message (exit status 2).
                """
        )

        @Argument(help: ArgumentHelp("JWKS key files, as given to verify --keys.", valueName: "file"))
        var files: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Trust anchor PEM files or directories, as given to verify --trust-anchors.", valueName: "[env=]path"))
        var trustAnchors: [String] = []

        @Flag(name: .long, help: "One JSON object a line instead of tab-separated text.")
        var json = false

        func validate() throws {
            if files.isEmpty && trustAnchors.isEmpty {
                throw ValidationError("name at least one key file or --trust-anchors")
            }
            _ = try FileOptionRules.trustAnchorPaths(trustAnchors)
        }

        func run() throws {
            var output = files.isEmpty ? "" : listKeys()
            output += listAnchors()
            FileHandle.standardOutput.write(Data(output.utf8))
        }

        /// The anchors verify would load from `trustAnchors`, a line each (refused as verify
        /// refuses them).
        private func listAnchors() -> String {
            let paths = ((try? FileOptionRules.trustAnchorPaths(trustAnchors)) ?? []).flatMap { anchor in
                StatePaths.expand([anchor.path]).map { (path: $0, environment: anchor.environment) }
            }
            do {
                _ = try TrustAnchors.load(paths)
            } catch {
                ConfigurationError(description: error.description).exit()
            }
            var output = ""
            for (path, environment) in paths {
                guard let bytes = try? readFileBytes(path, limit: FileLimit.trustAnchors),
                    let certificates = try? CertificateSummary.summaries(pem: bytes, file: path)
                else { continue }
                for certificate in certificates {
                    if json {
                        var writer = JSONWriter()
                        writer.raw("{\"anchor\":")
                        writer.raw(CertificateText.json(certificate, environment: .some(environment?.rawValue)))
                        writer.raw(",")
                        writer.key("file")
                        writer.string(path)
                        writer.raw("}\n")
                        output += String(decoding: writer.bytes, as: UTF8.self)
                    } else {
                        let fields =
                            ["anchor", environment?.rawValue ?? "-"] + CertificateText.fields(certificate) + [path]
                        output += fields.joined(separator: "\t") + "\n"
                    }
                }
            }
            return output
        }

        /// The keys verify would load from `files`, a line each (refused as verify refuses them).
        private func listKeys() -> String {
            let keySet: KeySet
            do {
                let (loaded, warnings) = try KeySet.load(files: files)
                for warning in warnings { printError("tokenverify: warning: \(warning)") }
                keySet = loaded
            } catch {
                ConfigurationError(description: error.description).exit()
            }
            // Which file each key came from: the files are read in order and kids are unique.
            var origin: [String: String] = [:]
            for file in files {
                if let (set, _) = try? KeySet.load(files: [file]) {
                    for key in set.keys { origin[key.keyID] = file }
                }
            }
            var output = ""
            for key in keySet.keys {
                let type = key.type == .ed25519 ? "OKP/Ed25519" : "EC/P-256"
                if json {
                    var writer = JSONWriter()
                    writer.raw("{")
                    writer.key("kid")
                    writer.string(key.keyID)
                    writer.raw(",")
                    writer.key("kty")
                    writer.string(key.type == .ed25519 ? "OKP" : "EC")
                    writer.raw(",")
                    writer.key("crv")
                    writer.string(key.type.rawValue)
                    for (name, value) in [
                        ("alg", key.algorithm?.rawValue), ("env", key.environment?.rawValue), ("iss", key.issuer),
                    ] {
                        writer.raw(",")
                        writer.key(name)
                        if let value { writer.string(value) } else { writer.raw("null") }
                    }
                    writer.raw(",")
                    writer.key("thumbprint")
                    writer.string(key.thumbprint)
                    writer.raw(",")
                    writer.key("file")
                    writer.string(origin[key.keyID] ?? "")
                    writer.raw("}\n")
                    output += String(decoding: writer.bytes, as: UTF8.self)
                } else {
                    let fields = [
                        key.keyID, type, key.algorithm?.rawValue ?? "-", key.environment?.rawValue ?? "-",
                        key.issuer ?? "-", key.thumbprint, origin[key.keyID] ?? "-",
                    ]
                    output += fields.joined(separator: "\t") + "\n"
                }
            }
            if keySet.keys.isEmpty && trustAnchors.isEmpty {
                printError("tokenverify: warning: the key files hold no keys; every token would be unknown_key")
            }
            return output
        }
    }
}

/// Reads whole key files; a file that cannot be read stops the command (exit status 2).
func readKeyFiles(_ files: [String]) -> [(file: String, bytes: [UInt8])] {
    var seen: [String: String] = [:]
    return files.map { file in
        if let earlier = seen.updateValue(
            file, forKey: URL(fileURLWithPath: file).resolvingSymlinksInPath().standardizedFileURL.path)
        {
            ConfigurationError(
                description:
                    "\(file): \(earlier == file ? "given twice" : "the same file as \(earlier)"): give each key file once"
            ).exit()
        }
        return (file, FileOptionRules.read(file, what: "key file"))
    }
}
