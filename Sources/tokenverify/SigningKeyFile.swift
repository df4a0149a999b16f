import ArgumentParser
import Foundation
import TokenTools
import TokenVerifier

/// Reads the private key that `sign --key` (or another `command`'s option) names: one private
/// JWK, or with `kid` one key of a file of private JWKs, one a line (as `gen` writes
/// signing-keys.jwk). A file that is something else (a public key set, a public JWK, a PEM key)
/// stops the command with what it is and what the command needs (exit status 2).
func loadSigningKey(path: String, kid: String?, command: String = "sign") -> SigningKey {
    let data = FileOptionRules.read(path, what: "the key file")
    let needs =
        "\(command) needs a private JWK (with \"d\"), as `tokenverify keygen --out NAME` writes into NAME.private.jwk"
    var bytes = [UInt8](data)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    let lines = bytes.split(separator: 0x0A).map {
        String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    .filter { !$0.isEmpty }
    let objects = lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    if lines.count > 1, objects.allSatisfy({ $0 != nil }) {
        // JSON lines of keys.
        let keyIDs = objects.map { $0!["kid"] as? String ?? "?" }
        guard let kid else {
            let shown = keyIDs.prefix(5).joined(separator: ", ") + (keyIDs.count > 5 ? ", …" : "")
            ConfigurationError(
                description:
                    "\(path): holds \(counted(lines.count, "key")), one a line (kids: \(shown)); choose one with --kid K"
            ).exit()
        }
        guard let index = keyIDs.firstIndex(of: kid) else {
            ConfigurationError(
                description: "\(path): no key with kid \"\(kid)\" among its \(counted(lines.count, "key"))"
            ).exit()
        }
        return parseSigningKey(Array(lines[index].utf8), path: path, needs: needs)
    }
    let whole = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    if let whole, whole["keys"] != nil {
        ConfigurationError(description: "\(path): a key set (JWKS) of public keys; \(needs)").exit()
    }
    if let whole, whole["kty"] != nil, whole["d"] == nil {
        ConfigurationError(description: "\(path): a public JWK (no \"d\"); \(needs)").exit()
    }
    if String(decoding: bytes.prefix(64), as: UTF8.self).contains("-----BEGIN") {
        ConfigurationError(description: "\(path): a PEM key; \(needs)").exit()
    }
    if let kid, let wholeKid = whole?["kid"] as? String, wholeKid != kid {
        ConfigurationError(description: "\(path): its key has kid \"\(wholeKid)\", not \"\(kid)\"").exit()
    }
    return parseSigningKey(bytes, path: path, needs: needs)
}

private func parseSigningKey(_ bytes: [UInt8], path: String, needs: String) -> SigningKey {
    do {
        return try SigningKey.parse(jwk: bytes)
    } catch {
        ConfigurationError(description: "\(path): \(error.description); \(needs)").exit()
    }
}

/// The help of `--chain` (sign, status-list).
let chainHelp = ArgumentHelp(
    "A PEM file of certificates, leaf first, to carry in the header (x5c, x5chain) in place of the kid.",
    valueName: "file")
