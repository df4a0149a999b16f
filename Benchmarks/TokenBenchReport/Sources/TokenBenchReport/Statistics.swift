/// Order statistics of a few repetitions.
public enum Statistics {
    /// The value under which `fraction` of `values` fall, interpolated between the two nearest
    /// (the usual "type 7" quantile); nil for no values.
    public static func quantile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    public static func median(_ values: [Double]) -> Double? { quantile(values, 0.5) }

    /// Interquartile range relative to the median: how far the middle half of the repetitions
    /// spread, as a fraction of the typical value (0 for one value).
    public static func relativeSpread(_ values: [Double]) -> Double? {
        guard let median = median(values), median != 0,
            let lower = quantile(values, 0.25), let upper = quantile(values, 0.75)
        else { return nil }
        return (upper - lower) / median
    }

    /// The standard error of the median, relative to it, estimated without assuming the
    /// repetitions are well behaved: σ ≈ IQR ÷ 1.349 (exact for a normal distribution, and robust
    /// to one disturbed repetition), and the median's standard error ≈ 1.2533 σ ÷ √n.
    public static func relativeStandardErrorOfMedian(_ values: [Double]) -> Double? {
        guard values.count > 1, let spread = relativeSpread(values) else { return nil }
        return 1.2533 * (spread / 1.349) / Double(values.count).squareRoot()
    }
}
