import Foundation

/// One URL that `fetch` downloads: a key set (JWKS) or a Status List Token, and the file it
/// becomes in the output directory.
package struct FetchTarget: Sendable, Hashable {
    /// What a download is checked as, and the folder it is written to.
    package enum Kind: String, Sendable, Hashable {
        case keys
        case statusList = "status-lists"

        /// The folder under the output directory.
        package var folder: String { rawValue }
    }

    /// Key set or status list.
    package let kind: Kind
    /// The URL as given (an `https:` URL).
    package let url: String
    /// The file's name in its folder: the URL's host and path made safe, then a hash of the
    /// whole URL, so that two URLs never share a file and the same URL always has the same one.
    package let fileName: String

    /// A target for `url`, which must be an absolute `https:` URL with a host.
    package init(kind: Kind, url: String) throws(FetchUsageError) {
        try FetchTarget.checkHTTPS(url)
        self.kind = kind
        self.url = url
        self.fileName = FetchTarget.fileName(for: url)
    }

    /// Refuses anything but an absolute `https:` URL with a host (plain `http:` included).
    package static func checkHTTPS(_ url: String) throws(FetchUsageError) {
        if url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw FetchUsageError("\(url): a URL may not hold spaces or control characters")
        }
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased() else {
            throw FetchUsageError("\(url): not a URL")
        }
        guard scheme == "https" else {
            throw FetchUsageError("\(url): only https URLs are fetched (plain \(scheme): is refused)")
        }
        guard let host = parsed.host, !host.isEmpty else { throw FetchUsageError("\(url): the URL names no host") }
    }

    /// `host_path_query-HASH`: letters, digits, `.`, `-` and `_` only, never starting with a dot
    /// (`verify` skips dotfiles), at most 100 characters before the hash.
    static func fileName(for url: String) -> String {
        var rest = Substring(url)
        if let schemeEnd = rest.range(of: "://") { rest = rest[schemeEnd.upperBound...] }
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        var name = ""
        var lastWasUnderscore = false
        for scalar in rest.unicodeScalars {
            let safe = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-")
            if safe {
                name.unicodeScalars.append(scalar)
                lastWasUnderscore = false
            } else if !lastWasUnderscore {
                name += "_"
                lastWasUnderscore = true
            }
        }
        while name.hasPrefix(".") || name.hasPrefix("_") { name.removeFirst() }
        while name.hasSuffix("_") { name.removeLast() }
        if name.count > 100 { name = String(name.prefix(100)) }
        let hash = String(fnv1a64(Array(url.utf8)), radix: 16)
        return (name.isEmpty ? "url" : name) + "-" + String(repeating: "0", count: 16 - hash.count) + hash
    }

    /// FNV-1a, 64 bits: a stable name for a URL (not a security measure: the URLs are the user's).
    private static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// A usage error of `fetch` (exit status 2): a URL that is not https, a bad option.
package struct FetchUsageError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, in one sentence.
    package var description: String
    package init(_ description: String) { self.description = description }
}
