import Foundation

/// A real HTTPS publisher on 127.0.0.1 for the `fetch` tests: `https_publisher.py` (Python's
/// standard library) serving a folder, with a certificate for localhost and 127.0.0.1 from a
/// throwaway CA made here with the `openssl` command line. What a file's URL answers is switched
/// with ``setMode(_:_:)`` (a 500, a truncated body, redirects, a slow answer: the script says
/// which).
package final class HTTPSPublisher: @unchecked Sendable {
    /// The scratch folder: `served/` (the published files), the CA and the request log.
    package let directory: URL
    /// The CA's certificate, for `--ca-file`.
    package let caFile: String
    package let httpsPort: Int
    package let httpPort: Int
    private let process = Process()
    private let stdin = Pipe()
    private let served: URL
    private let log: URL

    package init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokenverify-publisher-\(UUID().uuidString)")
        served = directory.appendingPathComponent("served")
        log = directory.appendingPathComponent("requests.jsonl")
        try FileManager.default.createDirectory(
            at: served.appendingPathComponent(".mode"),
            withIntermediateDirectories: true)
        let path = directory.path
        caFile = "\(path)/ca.pem"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: "\(path)/server.ext", atomically: true, encoding: .utf8)
        for arguments in [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "\(path)/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=tokenverify test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "\(path)/server.key",
                "-out", "\(path)/server.csr", "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "\(path)/server.csr", "-CA", caFile, "-CAkey", "\(path)/ca.key",
                "-CAcreateserial",
                "-out", "\(path)/server.pem", "-days", "2", "-extfile", "\(path)/server.ext",
            ],
        ] {
            try HTTPSPublisher.run("/usr/bin/openssl", arguments)
        }
        let script = Repository.root.appendingPathComponent("Tests/TestSupport/https_publisher.py").path
        let stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, served.path, "\(path)/server.pem", "\(path)/server.key", log.path]
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        let line = stdout.fileHandleForReading.readLine()
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int],
            let https = object["https"], let http = object["http"]
        else {
            process.terminate()
            throw PublisherError(description: "the publisher did not start: \(line)")
        }
        httpsPort = https
        httpPort = http
    }

    deinit {
        try? stdin.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The https URL of a published file.
    package func url(_ name: String) -> String { "https://127.0.0.1:\(httpsPort)/\(name)" }

    /// Publishes `contents` as `name` (written beside it and renamed into place), with the
    /// modification time `modified` when given.
    package func publish(_ name: String, _ contents: String, modified: Date? = nil) throws {
        let temporary = served.appendingPathComponent(".\(name).new")
        try Data(contents.utf8).write(to: temporary)
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: temporary.path)
        }
        guard rename(temporary.path, served.appendingPathComponent(name).path) == 0 else {
            throw PublisherError(description: "cannot publish \(name)")
        }
    }

    /// Sets how `name` is answered (`status 500`, `truncate`, `redirect 3`, `redirect-http`,
    /// `slow 5`, `etag-only`, `lm-only`), or back to normal with nil.
    package func setMode(_ name: String, _ mode: String?) throws {
        let file = served.appendingPathComponent(".mode").appendingPathComponent(name)
        if let mode {
            try mode.write(to: file, atomically: true, encoding: .utf8)
        } else {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// The requests the publisher answered, in order: path, status, tls, if_none_match, if_modified_since.
    package func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PublisherError(description: "\(executable) \(arguments.joined(separator: " ")) failed")
        }
    }

    package struct PublisherError: Error, CustomStringConvertible {
        package var description: String
    }
}

extension FileHandle {
    /// One line (without its newline), read byte by byte: the publisher's first output line.
    fileprivate func readLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let data = readData(ofLength: 1)
            guard let byte = data.first, byte != 0x0A else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
