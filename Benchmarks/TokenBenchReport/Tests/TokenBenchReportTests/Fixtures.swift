import TokenBenchReport

/// Small reports for the tests: what a run of the gate scenarios and a latency scenario produces.
enum Fixtures {
    static func report(
        instructions: Double = 29_000, efficiency: [Double] = [0.95, 0.96, 0.97, 0.96, 0.95],
        p99: Double = 12_000
    ) -> Report {
        var report = Report(
            machine: .init(host: "test-host", cores: 2, date: "2026-11-23T04:00:00Z", valgrind: "valgrind-3.19.0"))
        var counted = Report.Scenario(name: "instructions-ed25519", tokens: 1000, threads: 1)
        counted.instructions = .init(perToken: instructions, signatureLibraryPerToken: 652_000, setSizes: [200, 1000])
        var interleaved = Report.Scenario(
            name: "efficiency-ed25519", tokens: 40_000, threads: 2, throughput: 24_000,
            rawRate: 25_000, efficiency: Statistics.median(efficiency))
        interleaved.samples = .init(
            throughput: efficiency.map { $0 * 25_000 }, rawRate: Array(repeating: 25_000, count: efficiency.count + 1),
            efficiency: efficiency)
        let percentiles = [0, 50, 90, 99, 99.9, 100].map {
            Report.PercentilePoint(percentile: $0, microseconds: $0 == 99 ? p99 : 100 + $0 * 10)
        }
        let latency = Report.Latency(
            mode: "open-loop at 12000/s", requests: 24_000, p50Microseconds: 600, p99Microseconds: p99,
            p999Microseconds: p99 * 1.5, maxMicroseconds: p99 * 2, percentiles: percentiles)
        let open = Report.Scenario(
            name: "ed25519", tokens: 200_000, threads: 2, throughput: 25_000, rawRate: 26_000,
            efficiency: 0.96, latency: latency)
        var scaling: [Report.Scenario] = []
        for (algorithm, raw) in [("ed25519", 13_000.0), ("es256", 12_000.0)] {
            for threads in [1, 2] {
                var row = Report.Scenario(
                    name: "scaling-\(algorithm)", tokens: 40_000, threads: threads,
                    throughput: raw * Double(threads) * 0.95, rawRate: raw * Double(threads), efficiency: 0.95)
                row.samples = .init(
                    throughput: [row.throughput!], rawRate: [raw * Double(threads), raw * Double(threads)],
                    efficiency: [0.95])
                scaling.append(row)
            }
        }
        report.scenarios = [counted, interleaved, open] + scaling
        return report
    }
}
