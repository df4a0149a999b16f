import Foundation

/// The pictures of `--plots DIR`: one latency distribution per scenario that has one, and the
/// thread-scaling chart.
public enum Plots {
    /// File name → SVG text.
    public static func render(_ report: Report) -> [String: String] {
        var files: [String: String] = [:]
        for scenario in report.scenarios {
            if let latency = latencyChart(scenario) { files["latency-\(scenario.name).svg"] = latency }
        }
        if let scaling = scalingChart(report) { files["scaling.svg"] = scaling }
        return files
    }

    /// HdrHistogram's percentile plot: latency against percentile, the x axis logarithmic in
    /// 1 ÷ (1 − percentile), so 90%, 99%, 99.9% … are equally spaced and the tail is visible.
    public static func latencyChart(_ scenario: Report.Scenario) -> String? {
        guard let latency = scenario.latency, let percentiles = latency.percentiles, !percentiles.isEmpty else {
            return nil
        }
        let top = percentiles.map(\.percentile).filter { $0 < 100 }.max() ?? 99.9
        let nines = max(2, Int(log10(1 / (1 - min(top, 99.9999) / 100)).rounded(.up)))
        let points = percentiles.map { (x: position($0.percentile, nines: nines), y: $0.microseconds) }
        let ticks = (0...nines).map { nine -> (Double, String) in
            let percent = 100 * (1 - pow(10, -Double(nine)))
            return (Double(nine), nine == 0 ? "0%" : Self.percentLabel(percent))
        }
        let chart = LineChart(
            title: "\(scenario.name): latency by percentile (\(latency.mode), \(latency.requests) requests)",
            xLabel: "percentile", yLabel: "latency (µs)", xTicks: ticks,
            series: [.init(name: "\(scenario.name) latency", points: points, color: LineChart.palette[0])])
        return SVGDocument(width: 720, height: 440, elements: chart.elements(x: 0, y: 0, width: 720, height: 440))
            .render()
    }

    /// log10(1 ÷ (1 − p)), the max (100%) drawn at the last tick.
    static func position(_ percentile: Double, nines: Int) -> Double {
        guard percentile < 100 else { return Double(nines) }
        return min(Double(nines), log10(1 / (1 - percentile / 100)))
    }

    static func percentLabel(_ percent: Double) -> String {
        var text = String(format: "%.6f", percent)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "%"
    }

    /// Two panels: tokens/s and the raw rate against threads (per algorithm), and efficiency.
    public static func scalingChart(_ report: Report) -> String? {
        let rows = report.scenarios.filter { $0.name.hasPrefix("scaling-") }
        guard !rows.isEmpty else { return nil }
        let algorithms = Array(Set(rows.map(\.name))).sorted()
        let threads = Array(Set(rows.map(\.threads))).sorted()
        var rates: [LineChart.Series] = []
        var efficiencies: [LineChart.Series] = []
        for (index, name) in algorithms.enumerated() {
            let algorithm = String(name.dropFirst("scaling-".count))
            let color = LineChart.palette[index % LineChart.palette.count]
            let ordered = rows.filter { $0.name == name }.sorted { $0.threads < $1.threads }
            rates.append(
                .init(
                    name: "\(algorithm) tokens/s",
                    points: ordered.compactMap { row in row.throughput.map { (Double(row.threads), $0) } }, color: color
                ))
            rates.append(
                .init(
                    name: "\(algorithm) raw/s",
                    points: ordered.compactMap { row in row.rawRate.map { (Double(row.threads), $0) } },
                    color: color, dashed: true))
            efficiencies.append(
                .init(
                    name: "\(algorithm) efficiency",
                    points: ordered.compactMap { row in row.efficiency.map { (Double(row.threads), $0) } }, color: color
                ))
        }
        let ticks = threads.map { (Double($0), "\($0)") }
        let throughput = LineChart(
            title: "throughput against threads (dashed: raw signature rate)", xLabel: "threads",
            yLabel: "per second", xTicks: ticks, series: rates)
        let efficiency = LineChart(
            title: "efficiency = tokens/s ÷ raw/s", xLabel: "threads", yLabel: "efficiency",
            xTicks: ticks, series: efficiencies)
        return SVGDocument(
            width: 1040, height: 480,
            elements: throughput.elements(x: 0, y: 0, width: 560, height: 480)
                + efficiency.elements(x: 560, y: 0, width: 480, height: 480)
        ).render()
    }
}
