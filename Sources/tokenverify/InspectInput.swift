import TokenVerifier

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where `inspect` reads its tokens (spec §7): `-`, or no argument, is standard input; an
/// argument that names an existing file is that file (a regular file or a FIFO; a folder, a
/// device or a socket is refused, exit status 2); anything else is one token. Standard input and
/// files are read line by line, through a 64 KiB buffer, so a large file is never held whole.
enum InspectInput {
    /// One token given as the argument.
    case token(String)
    /// A stream of lines: `name` for messages (`<stdin>` or the path) and its descriptor.
    case lines(name: String, descriptor: Int32)

    /// The input `argument` names, or the command stops (exit status 2) saying why.
    static func resolve(_ argument: String?) -> InspectInput {
        guard let argument, argument != "-" else { return .lines(name: "<stdin>", descriptor: 0) }
        var status = stat()
        guard stat(argument, &status) == 0 else { return .token(argument) }
        if status.st_mode & S_IFMT != S_IFIFO, let kind = notRegularKind(status.st_mode) {
            ConfigurationError(
                description: "\(argument): is \(kind); inspect reads a token, a file of tokens, or - for standard input"
            ).exit()
        }
        let descriptor = open(argument, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            ConfigurationError(description: "\(argument): cannot read: \(String(cString: strerror(errno)))").exit()
        }
        return .lines(name: argument, descriptor: descriptor)
    }

    /// Calls `body` with each line read from `descriptor` (without its line break, and its
    /// 1-based number) until the end of the input, then closes a descriptor other than stdin.
    /// A read error stops the command (exit status 2) naming `name`.
    static func forEachLine(name: String, descriptor: Int32, _ body: (String, Int) -> Void) {
        defer { if descriptor != 0 { close(descriptor) } }
        var pending: [UInt8] = []
        var number = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                ConfigurationError(description: "\(name): cannot read: \(String(cString: strerror(errno)))").exit()
            }
            if count == 0 { break }
            var start = 0
            for position in 0..<count where chunk[position] == UInt8(ascii: "\n") {
                pending.append(contentsOf: chunk[start..<position])
                number += 1
                body(String(decoding: pending, as: UTF8.self), number)
                pending.removeAll(keepingCapacity: true)
                start = position + 1
            }
            pending.append(contentsOf: chunk[start..<count])
        }
        if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self), number + 1) }
    }
}
