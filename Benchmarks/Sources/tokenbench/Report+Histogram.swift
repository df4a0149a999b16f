import Histogram
import TokenBenchReport

extension Report.Latency {
    /// The percentiles the latency plot draws, HdrHistogram style: denser towards the tail.
    static let plottedPercentiles: [Double] = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100]

    /// The summary and distribution of a histogram of nanoseconds.
    init(mode: String, histogram: Histogram<UInt64>) {
        self.init(
            mode: mode, requests: Int(histogram.totalCount),
            p50Microseconds: Double(histogram.valueAtPercentile(50)) / 1000,
            p99Microseconds: Double(histogram.valueAtPercentile(99)) / 1000,
            p999Microseconds: Double(histogram.valueAtPercentile(99.9)) / 1000,
            maxMicroseconds: Double(histogram.max) / 1000)
        percentiles = Self.plottedPercentiles.map { percentile in
            let value = percentile >= 100 ? histogram.max : histogram.valueAtPercentile(percentile)
            return Report.PercentilePoint(percentile: percentile, microseconds: Double(value) / 1000)
        }
    }
}
