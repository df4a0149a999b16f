import Testing

@testable import TokenMetrics

/// The exposition pieces TokenMetrics writes itself (the Prometheus text format 0.0.4).
@Suite struct ExpositionTests {
    @Test func aHistogramHasCumulativeBucketsInfSumAndCount() {
        var buffer: [UInt8] = []
        Exposition.histogram(
            name: "t_seconds", help: "Some seconds.", bounds: [0.001, 0.5, 2], cumulative: [1, 3, 3], sum: 1.25,
            into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self) == """
                # HELP t_seconds Some seconds.
                # TYPE t_seconds histogram
                t_seconds_bucket{le="0.001"} 1
                t_seconds_bucket{le="0.5"} 3
                t_seconds_bucket{le="2"} 3
                t_seconds_bucket{le="+Inf"} 3
                t_seconds_sum 1.25
                t_seconds_count 3

                """)
    }

    @Test func numbersAreWrittenAsTheFormatReadsThem() {
        #expect(Exposition.number(3) == "3")
        #expect(Exposition.number(-2) == "-2")
        #expect(Exposition.number(0.25) == "0.25")
        #expect(Exposition.number(.infinity) == "+Inf")
        #expect(Exposition.number(-.infinity) == "-Inf")
        #expect(Exposition.number(.nan) == "NaN")
        #expect(Exposition.number(1e20) == "1e+20")
    }
}
