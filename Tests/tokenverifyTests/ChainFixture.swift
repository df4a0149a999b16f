import Foundation
import TestSupport
import Testing

/// A root → intermediate → leaf chain made by `tokenverify keygen` and `tokenverify certificate`
/// in a fresh directory: keys NAME.private.jwk and NAME.jwks, certificates NAME.pem, and
/// chain.pem (leaf, then intermediate). The leaf is valid from ``leafStart`` to ``leafEnd``
/// (inside the others' validity) and names https://op.example and op.example.
struct ChainFixture {
    let space: Workspace
    static let leafStart = 1_790_000_000
    static let leafEnd = 1_810_000_000
    static let issuer = "https://op.example"

    /// `algorithms`: the keygen `--alg` of the root, the intermediate and the leaf.
    init(_ algorithms: (root: String, intermediate: String, leaf: String)) throws {
        space = try Workspace()
        for (name, alg) in [("root", algorithms.root), ("inter", algorithms.intermediate), ("leaf", algorithms.leaf)] {
            let made = try Tool.run(["keygen", "--alg", alg, "--kid", name, "--out", space.path(name)])
            try #require(made.status == 0, "\(made.stderr)")
        }
        try issue([
            "--ca", "--key", path("root.private.jwk"), "--subject", "CN=Test Root,O=Operator",
            "--not-before", "1700000000", "--not-after", "1900000000", "--out", path("root.pem"),
        ])
        try issue([
            "--ca", "--path-length", "0", "--key", path("inter.jwks"), "--subject", "CN=Test CA 1,O=Operator",
            "--issuer-cert", path("root.pem"), "--issuer-key", path("root.private.jwk"),
            "--not-before", "2025-06-01T00:00:00Z", "--not-after", "1880000000", "--out", path("inter.pem"),
        ])
        try issue([
            "--key", path("leaf.jwks"), "--subject", "CN=signer-1", "--uri", Self.issuer, "--dns", "op.example",
            "--issuer-cert", path("inter.pem"), "--issuer-key", path("inter.private.jwk"),
            "--not-before", String(Self.leafStart), "--not-after", String(Self.leafEnd), "--serial", "0x0102ab",
            "--out", path("leaf.pem"),
        ])
        try space.write("chain.pem", try text("leaf.pem") + text("inter.pem"))
    }

    func path(_ name: String) -> String { space.path(name) }

    func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    private func issue(_ arguments: [String]) throws {
        let made = try Tool.run(["certificate"] + arguments)
        try #require(made.status == 0, "certificate \(arguments): \(made.stderr)")
        #expect(made.stdout.isEmpty, "with --out nothing goes to stdout")
    }

    /// The DER bytes of each certificate of a PEM text, in order.
    static func ders(pem: String) -> [Data] {
        pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst().compactMap { block in
            let body = block.components(separatedBy: "-----END CERTIFICATE-----")[0]
            return Data(base64Encoded: body.filter { !$0.isWhitespace })
        }
    }

    /// The `openssl` command line, when the machine has it.
    static let openssl = "/usr/bin/openssl"

    static func requireOpenSSL() throws {
        try External.require(
            FileManager.default.isExecutableFile(atPath: openssl), "no \(openssl) (Debian's openssl package)")
    }
}

/// A small CBOR reader for the tests (RFC 8949 definite lengths only), independent of the
/// project's own: enough to take a COSE_Sign1 message and its protected header apart.
indirect enum CBORItem: Equatable {
    case unsigned(UInt64)
    case negative(UInt64)  // -1 - n
    case bytes([UInt8])
    case text(String)
    case array([CBORItem])
    case map([(CBORItem, CBORItem)])
    case tagged(UInt64, CBORItem)

    static func == (a: CBORItem, b: CBORItem) -> Bool { "\(a)" == "\(b)" }

    static func decode(_ bytes: [UInt8]) -> CBORItem? {
        var position = 0
        guard let item = read(bytes, &position), position == bytes.count else { return nil }
        return item
    }

    private static func read(_ bytes: [UInt8], _ position: inout Int) -> CBORItem? {
        guard position < bytes.count else { return nil }
        let major = bytes[position] >> 5
        let info = bytes[position] & 0x1F
        position += 1
        var argument = UInt64(info)
        if info >= 24 {
            guard info <= 27 else { return nil }
            let size = 1 << Int(info - 24)
            guard position + size <= bytes.count else { return nil }
            argument = bytes[position..<position + size].reduce(0) { $0 << 8 | UInt64($1) }
            position += size
        }
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2, 3:
            guard argument <= UInt64(bytes.count - position) else { return nil }
            let body = Array(bytes[position..<position + Int(argument)])
            position += Int(argument)
            return major == 2 ? .bytes(body) : .text(String(decoding: body, as: UTF8.self))
        case 4:
            var items: [CBORItem] = []
            for _ in 0..<argument {
                guard let item = read(bytes, &position) else { return nil }
                items.append(item)
            }
            return .array(items)
        case 5:
            var pairs: [(CBORItem, CBORItem)] = []
            for _ in 0..<argument {
                guard let key = read(bytes, &position), let value = read(bytes, &position) else { return nil }
                pairs.append((key, value))
            }
            return .map(pairs)
        case 6:
            guard let item = read(bytes, &position) else { return nil }
            return .tagged(argument, item)
        default: return nil
        }
    }

    /// The value of the integer key `key` in a map.
    subscript(key: UInt64) -> CBORItem? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.0 == .unsigned(key) }?.1
    }
}
