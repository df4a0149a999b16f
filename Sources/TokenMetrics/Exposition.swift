import Prometheus

/// The pieces of the Prometheus text exposition format (0.0.4) this module adds itself, beside
/// what swift-prometheus's registry writes: a histogram whose buckets are filled a chunk of
/// lines at a time (the registry's histogram takes a lock per observation).
enum Exposition {
    /// A histogram without labels: HELP, TYPE, cumulative buckets (`le`), `+Inf`, sum and count.
    static func histogram(
        name: String, help: String, bounds: [Double], cumulative: [Int], sum: Double, into buffer: inout [UInt8]
    ) {
        buffer.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) histogram\n".utf8)
        for (index, bound) in bounds.enumerated() {
            buffer.append(contentsOf: "\(name)_bucket{le=\"\(number(bound))\"} \(cumulative[index])\n".utf8)
        }
        let count = cumulative.last ?? 0
        buffer.append(contentsOf: "\(name)_bucket{le=\"+Inf\"} \(count)\n".utf8)
        buffer.append(contentsOf: "\(name)_sum \(number(sum))\n\(name)_count \(count)\n".utf8)
    }

    /// A number as the format writes it (Go's float syntax; integers without a fraction).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// Makes counters and gauges in a swift-prometheus registry by their full names.
extension PrometheusCollectorRegistry {
    func counter(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Counter {
        makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }
}

/// A counter fed from totals kept elsewhere: each ``set(_:)`` adds what the total grew by.
final class TotalCounter: @unchecked Sendable {
    let counter: Counter
    private var published = 0

    init(_ counter: Counter) { self.counter = counter }

    /// Called on the metrics queue only.
    func set(_ total: Int) {
        if total > published { counter.increment(by: Int64(total - published)) }
        published = max(published, total)
    }
}

/// Gauges keyed by one label's value, made and dropped as the values come and go.
final class GaugeSet: @unchecked Sendable {
    private let registry: PrometheusCollectorRegistry
    private let name: String
    private let help: String
    private let label: String
    private var gauges: [String: Gauge] = [:]

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, label: String) {
        self.registry = registry
        self.name = name
        self.help = help
        self.label = label
    }

    /// Sets one gauge per key to its value and drops the gauges of keys no longer given.
    func set(_ values: [String: Double]) {
        for (key, gauge) in gauges where values[key] == nil {
            registry.unregisterGauge(gauge)
            gauges[key] = nil
        }
        for (key, value) in values {
            let gauge = gauges[key] ?? registry.gauge(name, help, [(label, key)])
            gauges[key] = gauge
            gauge.set(value)
        }
    }
}
