import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// File options refuse what is not a regular file (spec §3b, §7): a FIFO without a writer, a
/// character device such as `/dev/zero`, a directory where a folder is not allowed, a file over
/// its size limit; each is named, with what it is, and start-up stops (exit status 2) without
/// hanging or growing. An unknown environment tag of `--trust-anchors` is named as such.
@Suite(.timeLimit(.minutes(5))) struct FileOptionTests {
    /// A workspace with a FIFO (nobody ever opens it for writing) and a valid chain's files.
    struct World {
        let space: Workspace
        let chain: ChainFixture
        let fifo: String

        init() throws {
            space = try Workspace()
            chain = try ChainFixture(("ES256", "ES256", "ES256"))
            fifo = space.path("fifo")
            try #require(mkfifo(fifo, 0o600) == 0)
            try space.write("policy.json", "{}")
        }

        /// Runs `tokenverify` expecting a refusal at start-up that names `path` and `what`.
        func expectRefusal(_ arguments: [String], naming path: String, _ what: String) throws {
            let output = try BoundedRun.run(arguments, input: Data(space.token().utf8), seconds: 20)
            #expect(output.killed == nil, "\(arguments): killed, \(output.killed ?? "")")
            #expect(output.status == 2, "\(arguments): status \(output.status), \(output.stderr)")
            #expect(output.stdout.isEmpty, "\(arguments): answered")
            #expect(output.stderr.contains(path) && output.stderr.contains(what), "\(arguments): \(output.stderr)")
        }

        /// Every file option of `verify`, `keys`, `sign`, `status-list`, `certificate` and
        /// `fetch`, given `path`.
        func everyFileOption(_ path: String) -> [[String]] {
            let keys = space.path("keys.jwks")
            let verify = ["verify", "--at", "1800000000"]
            let signingKey = chain.path("leaf.private.jwk")
            return [
                verify + ["--trust-anchors", path],
                verify + ["--trust-anchors", "prod=" + path],
                verify + ["--keys", path],
                verify + ["--keys", keys, "--revocations", path],
                verify + ["--keys", keys, "--step-policy", path],
                verify + ["--keys", keys, "--step-policy", space.path("policy.json"), "--device-steps", path],
                verify + ["--keys", keys, "--status-lists", path],
                ["keys", "list", path],
                ["keys", "list", "--trust-anchors", path],
                ["keys", "import", path],
                ["sign", "--key", path],
                ["sign", "--key", signingKey, "--chain", path],
                ["status-list", "--key", path, "--uri", "https://op.example/sl/1", "--size", "8"],
                ["certificate", "--key", path, "--subject", "CN=x"],
                [
                    "certificate", "--key", chain.path("leaf.jwks"), "--subject", "CN=x", "--issuer-cert", path,
                    "--issuer-key", chain.path("inter.private.jwk"),
                ],
                ["fetch", "--keys", "https://127.0.0.1:1/jwks", "--out", space.path("out"), "--ca-file", path],
            ]
        }
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let world = try World()
        for arguments in world.everyFileOption(world.fifo) {
            try world.expectRefusal(arguments, naming: world.fifo, "FIFO")
        }
    }

    @Test func aCharacterDeviceIsRefusedBeforeItIsRead() throws {
        let world = try World()
        for arguments in world.everyFileOption("/dev/zero") {
            try world.expectRefusal(arguments, naming: "/dev/zero", "character device")
        }
    }

    /// A folder stands for its regular files only where the option allows one (keys, status lists,
    /// trust anchors); a FIFO inside such a folder is left out as any other non-regular file.
    @Test func aDirectoryIsRefusedWhereAFolderIsNotAllowed() throws {
        let world = try World()
        let folder = world.space.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let keys = world.space.path("keys.jwks")
        for arguments in [
            ["verify", "--keys", keys, "--revocations", folder],
            ["verify", "--keys", keys, "--step-policy", folder],
            ["keys", "list", folder],
            ["sign", "--key", folder],
        ] {
            try world.expectRefusal(arguments, naming: folder, "directory")
        }
        // A folder of anchors holding the root and a FIFO: the FIFO is not read.
        try FileManager.default.copyItem(atPath: world.chain.path("root.pem"), toPath: folder + "/root.pem")
        try #require(mkfifo(folder + "/pipe.pem", 0o600) == 0)
        let output = try BoundedRun.run(
            ["verify", "--at", "1800000000", "--trust-anchors", folder], input: Data(world.space.token().utf8),
            seconds: 20)
        #expect(output.killed == nil && output.status == 0, "status \(output.status): \(output.stderr)")
    }

    @Test func aFileOverItsLimitIsRefusedNamingTheLimit() throws {
        let world = try World()
        let big = world.space.path("big.jwks")
        try #require(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: UInt64(16 << 20) + 1)  // sparse: 16 MiB + 1 byte of zeros
        try handle.close()
        for arguments in [
            ["verify", "--at", "1800000000", "--keys", big],
            ["verify", "--at", "1800000000", "--trust-anchors", big],
            ["keys", "list", big],
            ["sign", "--key", big],
        ] {
            try world.expectRefusal(arguments, naming: big, "larger than the limit of 16 MiB")
        }
        // A revocation file's line is at most 1 MiB.
        let longLine = try world.space.write(
            "long.jsonl", "{\"jti\":\"" + String(repeating: "x", count: 1 << 20) + "\"}\n")
        try world.expectRefusal(
            ["verify", "--at", "1800000000", "--keys", world.space.path("keys.jwks"), "--revocations", longLine],
            naming: longLine, "line 1 is longer than 1048576 bytes")
    }

    @Test func anUnknownEnvironmentTagIsNamed() throws {
        let world = try World()
        let root = world.chain.path("root.pem")
        for arguments in [
            ["verify", "--at", "1800000000", "--trust-anchors", "staging=" + root],
            ["keys", "list", "--trust-anchors", "staging=" + root],
            [
                "fetch", "--keys", "https://127.0.0.1:1/jwks", "--out", world.space.path("out"), "--trust-anchors",
                "staging=" + root,
            ],
        ] {
            try world.expectRefusal(arguments, naming: "staging", "unknown environment tag \"staging\" (int, prod)")
        }
        // A path with "=" that is not a tag is still a path.
        let odd = world.space.path("a=b.pem")
        try FileManager.default.copyItem(atPath: root, toPath: odd)
        let output = try BoundedRun.run(
            ["verify", "--at", "1800000000", "--trust-anchors", odd], input: Data(world.space.token().utf8))
        #expect(output.status == 0, "\(output.stderr)")
    }
}
