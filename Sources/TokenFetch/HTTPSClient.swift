import CTokenHTTP
import Foundation
import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// The validators of the last good response, sent back as a conditional request to the URL that
/// gave them, and to no other (not to a redirect's target). A validator with a control
/// character is neither kept nor sent (it could end a header line and start another).
package struct Validators: Codable, Sendable, Equatable {
    /// The response's ETag, sent back as If-None-Match.
    package var etag: String?
    /// The response's Last-Modified, sent back as If-Modified-Since.
    package var lastModified: String?
    /// The URL whose response gave them (nil: the URL fetched, as state files without it say).
    package var url: String?

    package init(etag: String? = nil, lastModified: String? = nil, url: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.url = url
    }

    var isEmpty: Bool { etag == nil && lastModified == nil }

    /// These validators less any with a control character (C0, DEL).
    var withoutControlCharacters: Validators {
        func clean(_ value: String?) -> String? {
            value.flatMap { $0.utf8.contains { $0 < 0x20 || $0 == 0x7F } ? nil : $0 }
        }
        return Validators(etag: clean(etag), lastModified: clean(lastModified), url: url)
    }

    /// What to send to `current` in a fetch of `requested`: these, cleaned, when `current` gave
    /// them; nothing otherwise.
    func sent(to current: String, fetching requested: String) -> Validators? {
        guard (url ?? requested) == current else { return nil }
        let clean = withoutControlCharacters
        return clean.isEmpty ? nil : clean
    }
}

/// What one GET gave, after its redirects.
struct HTTPSResponse {
    var status: Int
    var validators: Validators
    var bodyBytes: Int
}

/// Why a GET gave no usable response.
enum HTTPSFailure: Error {
    case failed(String)
    case stopped
}

/// HTTPS GETs over libcurl (the C shim `CTokenHTTP`): https only, at most `maxRedirects`
/// redirects, each to an https URL, every exchange within `timeout`, the system's trusted
/// certificates plus those of a CA file.
struct HTTPSClient {
    /// Redirects followed at most.
    static let maxRedirects = 5

    let timeout: Double
    let maxBodyBytes: Int
    /// PEM certificates trusted instead of libcurl's default bundle (that bundle and the CA file
    /// together), or nil for the default bundle alone.
    private let caBundle: [UInt8]?

    /// A client trusting the system's certificates and, when given, those of `caFile` too.
    init(caFile: String?, timeout: Double, maxBodyBytes: Int) throws(FetchUsageError) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        guard let caFile else {
            caBundle = nil
            return
        }
        guard let extra = FileManager.default.contents(atPath: caFile) else {
            throw FetchUsageError("--ca-file \(caFile): cannot be read")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw FetchUsageError("--ca-file \(caFile): holds no PEM certificate")
        }
        var bundle: [UInt8] = []
        if let system = try HTTPSClient.systemBundle() { bundle = system + [0x0A] }
        caBundle = bundle + Array(extra)
    }

    /// The system's trusted certificates as one PEM file: libcurl's own default, else the usual
    /// places of Debian, Fedora, openSUSE and Alpine.
    private static func systemBundle() throws(FetchUsageError) -> [UInt8]? {
        var path = [CChar](repeating: 0, count: 4096)
        let result = tv_https_default_ca_file(&path, path.count)
        let text = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if result == Int32(TV_HTTPS_UNAVAILABLE) { throw FetchUsageError(text) }
        let libcurlDefault = text
        let candidates = [
            libcurlDefault, "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
            "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem",
        ]
        for candidate in candidates where !candidate.isEmpty {
            if let data = FileManager.default.contents(atPath: candidate) { return Array(data) }
        }
        return nil
    }

    /// GETs `url` into `fd` (from its start), following redirects within https; conditional
    /// when `validators` are given. A 3xx without a usable target, a redirect to anything but an
    /// https URL, and more than `maxRedirects` redirects fail.
    func get(_ url: String, validators: Validators?, into fd: Int32) throws(HTTPSFailure) -> HTTPSResponse {
        let deadline = Date().addingTimeInterval(timeout)
        var current = url
        var redirects = 0
        while true {
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                throw .failed("cannot write the temporary file: \(errnoText())")
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { throw .failed("timed out after \(seconds(timeout))") }
            let sent = validators?.sent(to: current, fetching: url)
            let response = try exchange(current, validators: sent, timeout: remaining, fd: fd)
            guard [301, 302, 303, 307, 308].contains(response.status) else {
                var given = response.validators.withoutControlCharacters
                given.url = current == url ? nil : current
                return HTTPSResponse(status: response.status, validators: given, bodyBytes: response.bodyBytes)
            }
            guard let target = response.location, !target.isEmpty else {
                throw .failed("HTTP \(response.status) redirect without a Location")
            }
            redirects += 1
            if redirects > HTTPSClient.maxRedirects {
                throw .failed("more than \(HTTPSClient.maxRedirects) redirects (the next to \(target))")
            }
            do {
                try FetchTarget.checkHTTPS(target)
            } catch {
                throw .failed("redirected to \(target), which is not https (refused)")
            }
            current = target
        }
    }

    private struct Exchange {
        var status: Int
        var validators: Validators
        var bodyBytes: Int
        var location: String?
    }

    /// One request, no redirect followed.
    private func exchange(
        _ url: String, validators: Validators?, timeout: Double,
        fd: Int32
    ) throws(HTTPSFailure) -> Exchange {
        var response = tv_https_response()
        let result: Int32 = url.withCString { url in
            withOptionalCString(validators?.etag) { etag in
                withOptionalCString(validators?.lastModified) { lastModified in
                    caBundle.withOptionalBytes { bundle, bundleLength in
                        var request = tv_https_request(
                            url: url, if_none_match: etag, if_modified_since: lastModified,
                            ca_bundle: bundle, ca_bundle_length: bundleLength,
                            timeout_ms: max(1, Int(timeout * 1000)), body_fd: fd,
                            max_body_bytes: Int64(maxBodyBytes),
                            should_stop: { ProcessSignals.stopRequested ? 1 : 0 })
                        return tv_https_get(&request, &response)
                    }
                }
            }
        }
        let error = cString(&response.error)
        switch Int(result) {
        case Int(TV_HTTPS_OK): break
        case Int(TV_HTTPS_STOPPED): throw .stopped
        case Int(TV_HTTPS_TIMED_OUT): throw .failed("timed out after \(seconds(self.timeout)) (\(error))")
        case Int(TV_HTTPS_TOO_LARGE): throw .failed("the body is larger than \(maxBodyBytes) bytes")
        default: throw .failed(error)
        }
        let bodyBytes = Int(response.body_bytes)
        if response.content_length >= 0 && Int(response.content_length) != bodyBytes {
            throw .failed("truncated body: \(bodyBytes) of the \(response.content_length) bytes of its Content-Length")
        }
        let etag = cString(&response.etag)
        let lastModified = cString(&response.last_modified)
        let location = cString(&response.location)
        return Exchange(
            status: Int(response.status),
            validators: Validators(
                etag: etag.isEmpty ? nil : etag,
                lastModified: lastModified.isEmpty ? nil : lastModified),
            bodyBytes: bodyBytes, location: location.isEmpty ? nil : location)
    }
}

/// Seconds as `fetch` prints them ("2 s", "0.5 s").
func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
}

/// A fixed-size C character array (a tuple, as Swift imports it) as a String.
private func cString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

extension Optional where Wrapped == [UInt8] {
    fileprivate func withOptionalBytes<R>(_ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
        guard let bytes = self else { return body(nil, 0) }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress, $0.count) }
        }
    }
}
