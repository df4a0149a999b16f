import Testing
import TokenMetrics
import TokenVerifier

/// ``VerifyMetrics/render()``: the text exposition of a `verify` run's metrics.
@Suite struct VerifyMetricsTests {
    @Test func aFreshRunRendersZeroCountsAnEmptyHistogramAndTypeLines() throws {
        let metrics = VerifyMetrics(
            verifier: Verifier(keys: try KeySet(keys: [])), parts: ["keys"], startupSeconds: 0.5)
        let text = String(decoding: metrics.render(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(text.hasSuffix("\n"))
        #expect(lines.contains("# TYPE tokenverify_lines_read_total counter"), "\(text)")
        #expect(lines.contains("tokenverify_lines_read_total 0"), "\(text)")
        #expect(lines.contains("# TYPE tokenverify_answer_latency_seconds histogram"), "\(text)")
        #expect(lines.contains("tokenverify_answer_latency_seconds_bucket{le=\"+Inf\"} 0"), "\(text)")
        #expect(lines.contains("tokenverify_answer_latency_seconds_count 0"), "\(text)")
        // Every other line is a sample: a name, optional labels, a number.
        for line in lines where !line.hasPrefix("#") {
            let value = line.split(separator: " ").last.map(String.init) ?? ""
            #expect(Double(value) != nil || value == "+Inf" || value == "NaN", "not a sample: \(line)")
            #expect(line.hasPrefix("tokenverify_"), "\(line)")
        }
    }
}
