import Foundation

/// A Prometheus text-format file read back for the tests: its samples, label values unescaped
/// (backslash, double quote, newline), and its TYPE lines.
struct MetricsText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let text: String
    private(set) var samples: [Sample] = []
    private(set) var types: [String: String] = [:]

    /// Parses `text`; throws on a line that is not a comment, a blank or a sample.
    init(_ text: String) throws {
        self.text = text
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(Array(line.utf8)))
        }
    }

    init(file: String) throws {
        try self.init(String(contentsOfFile: file, encoding: .utf8))
    }

    private static func sample(_ line: [UInt8]) throws -> Sample {
        var index = 0
        while index < line.count, line[index] != UInt8(ascii: "{"), line[index] != UInt8(ascii: " ") { index += 1 }
        let name = String(decoding: line[0..<index], as: UTF8.self)
        var labels: [String: String] = [:]
        if index < line.count, line[index] == UInt8(ascii: "{") {
            index += 1
            while line[index] != UInt8(ascii: "}") {
                let equals = line[index...].firstIndex(of: UInt8(ascii: "="))!
                let label = String(decoding: line[index..<equals], as: UTF8.self)
                guard line[equals + 1] == UInt8(ascii: "\"") else { throw CocoaError(.coderReadCorrupt) }
                index = equals + 2
                var value: [UInt8] = []
                while line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\") {
                        index += 1
                        switch line[index] {
                        case UInt8(ascii: "n"): value.append(0x0A)
                        case UInt8(ascii: "\\"), UInt8(ascii: "\""): value.append(line[index])
                        default: throw CocoaError(.coderReadCorrupt)
                        }
                    } else {
                        value.append(line[index])
                    }
                    index += 1
                }
                labels[label] = String(decoding: value, as: UTF8.self)
                index += 1
                if line[index] == UInt8(ascii: ",") { index += 1 }
            }
            index += 1
        }
        let rest = String(decoding: line[index...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let value = Double(rest.split(separator: " ")[0]) ?? (rest == "+Inf" ? Double.infinity : nil) else {
            throw CocoaError(.coderReadCorrupt)
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// The value of the one sample named `name` whose labels include `labels` (nil: none).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }?.value
    }

    /// The samples named `name`.
    func all(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}
