import Foundation
import TestSupport

/// Certificates for the chain tests, made with the `openssl` command line in a temporary
/// directory: keys (RSA, P-384, P-256, Ed25519), self-signed roots and certificates issued by
/// them, with chosen validity, basicConstraints, keyUsage and subjectAltName.
final class ChainFactory {
    enum KeyKind: String, CaseIterable {
        case rsa, p384, p256, ed25519
        var arguments: [String] {
            switch self {
            case .rsa: return ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
            case .p384: return ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]
            case .p256: return ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
            case .ed25519: return ["-algorithm", "ED25519"]
            }
        }
    }

    /// A certificate made here: its name (files NAME.pem, NAME.key) and DER.
    struct Issued {
        let name: String
        let der: [UInt8]
        let pem: String
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let directory: URL
    private var serial = 1

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chains-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("new"), withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("index.txt"))
        try Data(
            """
            [ca]
            default_ca = tv
            [tv]
            database = \(directory.path)/index.txt
            new_certs_dir = \(directory.path)/new
            serial = \(directory.path)/serial
            policy = any
            default_md = default
            unique_subject = no
            copy_extensions = none
            [any]
            commonName = supplied
            organizationName = optional
            """.utf8
        ).write(to: directory.appendingPathComponent("ca.cnf"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new private key NAME.key.
    func key(_ name: String, _ kind: KeyKind) throws {
        try openssl(["genpkey"] + kind.arguments + ["-out", path("\(name).key")])
    }

    /// Seconds since 1970 as openssl's `YYYYMMDDHHMMSSZ`.
    static func asn1Time(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A certificate for key `name` (made when missing), issued by `issuer` (nil: self-signed).
    /// `extensions` are openssl x509v3 config lines (`basicConstraints = critical,CA:TRUE`, …).
    @discardableResult
    func certificate(
        _ name: String, subject: String, key kind: KeyKind = .p256, issuer: String? = nil,
        notBefore: Int64, notAfter: Int64, extensions: [String]
    ) throws -> Issued {
        if !FileManager.default.fileExists(atPath: path("\(name).key")) { try key(name, kind) }
        try openssl(["req", "-new", "-key", path("\(name).key"), "-subj", subject, "-out", path("\(name).csr")])
        try Data((["[ext]"] + extensions).joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: path("\(name).ext")))
        try Data(String(format: "%04X\n", serial).utf8).write(to: URL(fileURLWithPath: path("serial")))
        serial += 1
        var arguments = [
            "ca", "-config", path("ca.cnf"), "-batch", "-notext", "-preserveDN", "-in", path("\(name).csr"),
            "-startdate", Self.asn1Time(notBefore), "-enddate", Self.asn1Time(notAfter),
            "-extfile", path("\(name).ext"), "-extensions", "ext", "-out", path("\(name).pem"),
        ]
        if let issuer {
            arguments += ["-cert", path("\(issuer).pem"), "-keyfile", path("\(issuer).key")]
        } else {
            arguments += ["-selfsign", "-keyfile", path("\(name).key")]
        }
        try openssl(arguments)
        try openssl(["x509", "-in", path("\(name).pem"), "-outform", "DER", "-out", path("\(name).der")])
        let der = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path("\(name).der"))))
        let pem = try String(contentsOfFile: path("\(name).pem"), encoding: .utf8)
        return Issued(name: name, der: der, pem: pem)
    }

    func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    func run(_ arguments: [String]) throws { try openssl(arguments) }

    private func openssl(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["openssl"] + arguments, directory: directory)
        guard result.status == 0 else {
            throw Failure(
                description:
                    "openssl \(arguments.joined(separator: " ")): \(String(decoding: result.stderr, as: UTF8.self))")
        }
    }

    /// Extension lines of common certificates.
    static func ca(pathLength: Int? = nil, root: Bool = false) -> [String] {
        [
            "basicConstraints = critical,CA:TRUE" + (pathLength.map { ",pathlen:\($0)" } ?? ""),
            "keyUsage = critical,keyCertSign,cRLSign",
            "subjectKeyIdentifier = hash",
        ] + (root ? [] : ["authorityKeyIdentifier = keyid"])
    }

    static func leaf(
        uris: [String] = [], dns: [String] = [], keyUsage: String? = "critical,digitalSignature"
    ) -> [String] {
        var lines = [
            "basicConstraints = critical,CA:FALSE", "subjectKeyIdentifier = hash", "authorityKeyIdentifier = keyid",
        ]
        if let keyUsage { lines.append("keyUsage = \(keyUsage)") }
        let names = uris.map { "URI:\($0)" } + dns.map { "DNS:\($0)" }
        if !names.isEmpty { lines.append("subjectAltName = " + names.joined(separator: ",")) }
        return lines
    }
}
