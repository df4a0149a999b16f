import Foundation

/// A line chart drawn into a rectangle of an SVG document: axes with ticks, one `<g
/// class="series" data-name="…">` per series (a polyline and its points), and a legend.
public struct LineChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        public var points: [(x: Double, y: Double)]
        public var color: String
        public var dashed: Bool
        public init(name: String, points: [(x: Double, y: Double)], color: String, dashed: Bool = false) {
            self.name = name
            self.points = points
            self.color = color
            self.dashed = dashed
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    /// Ticks on the x axis: position (in the series' x units) and label.
    public var xTicks: [(Double, String)]
    public var series: [Series]

    public init(title: String, xLabel: String, yLabel: String, xTicks: [(Double, String)], series: [Series]) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.xTicks = xTicks
        self.series = series
    }

    public static let palette = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    ]

    /// The chart's elements inside the rectangle at (`x`, `y`) of `width` × `height`.
    public func elements(x left: Double, y top: Double, width: Double, height: Double) -> [SVGElement] {
        // The legend sits under the x axis, one line per series, so it never hides a line.
        let legendTop = top + height - 8 - Double(series.count) * 16
        let plotLeft = left + 70
        let plotRight = left + width - 40
        let plotTop = top + 30
        let plotBottom = legendTop - 44
        let xs = series.flatMap { $0.points.map(\.x) } + xTicks.map(\.0)
        let xMin = xs.min() ?? 0
        let xMax = max(xs.max() ?? 1, xMin + 1e-9)
        let yMax = Self.niceCeiling(series.flatMap { $0.points.map(\.y) }.max() ?? 1)
        func px(_ value: Double) -> Double { plotLeft + (value - xMin) / (xMax - xMin) * (plotRight - plotLeft) }
        func py(_ value: Double) -> Double { plotBottom - value / yMax * (plotBottom - plotTop) }
        let n = SVGElement.number

        var elements: [SVGElement] = [
            SVGElement(
                "text",
                [
                    ("x", n(left + width / 2)), ("y", n(top + 18)), ("text-anchor", "middle"), ("font-size", "14"),
                    ("font-weight", "bold"),
                ], text: title),
            SVGElement(
                "text", [("x", n((plotLeft + plotRight) / 2)), ("y", n(plotBottom + 36)), ("text-anchor", "middle")],
                text: xLabel),
            SVGElement(
                "text",
                [
                    ("x", n(left + 14)), ("y", n((plotTop + plotBottom) / 2)), ("text-anchor", "middle"),
                    ("transform", "rotate(-90 \(n(left + 14)) \(n((plotTop + plotBottom) / 2)))"),
                ], text: yLabel),
        ]
        var axes: [SVGElement] = [
            SVGElement(
                "line",
                [
                    ("x1", n(plotLeft)), ("y1", n(plotBottom)), ("x2", n(plotRight)), ("y2", n(plotBottom)),
                    ("stroke", "black"),
                ]),
            SVGElement(
                "line",
                [
                    ("x1", n(plotLeft)), ("y1", n(plotTop)), ("x2", n(plotLeft)), ("y2", n(plotBottom)),
                    ("stroke", "black"),
                ]),
        ]
        for (value, label) in xTicks {
            axes.append(
                SVGElement(
                    "line",
                    [
                        ("x1", n(px(value))), ("y1", n(plotTop)), ("x2", n(px(value))), ("y2", n(plotBottom)),
                        ("stroke", "#ddd"),
                    ]))
            axes.append(
                SVGElement(
                    "text", [("x", n(px(value))), ("y", n(plotBottom + 16)), ("text-anchor", "middle")], text: label))
        }
        for step in 0...4 {
            let value = yMax * Double(step) / 4
            axes.append(
                SVGElement(
                    "line",
                    [
                        ("x1", n(plotLeft)), ("y1", n(py(value))), ("x2", n(plotRight)), ("y2", n(py(value))),
                        ("stroke", "#ddd"),
                    ]))
            axes.append(
                SVGElement(
                    "text", [("x", n(plotLeft - 6)), ("y", n(py(value) + 4)), ("text-anchor", "end")],
                    text: Self.label(value)))
        }
        elements.append(SVGElement("g", [("class", "axes")], children: axes))

        for (index, line) in series.enumerated() {
            let points = line.points.map { "\(n(px($0.x))),\(n(py($0.y)))" }.joined(separator: " ")
            var stroke: [(String, String)] = [
                ("points", points), ("fill", "none"), ("stroke", line.color), ("stroke-width", "2"),
            ]
            if line.dashed { stroke.append(("stroke-dasharray", "6 4")) }
            var children = [SVGElement("polyline", stroke)]
            if line.points.count <= 32 {
                children += line.points.map {
                    SVGElement("circle", [("cx", n(px($0.x))), ("cy", n(py($0.y))), ("r", "3"), ("fill", line.color)])
                }
            }
            let legendY = legendTop + 8 + Double(index) * 16
            var legendLine: [(String, String)] = [
                ("x1", n(plotLeft + 10)), ("y1", n(legendY)), ("x2", n(plotLeft + 34)), ("y2", n(legendY)),
                ("stroke", line.color), ("stroke-width", "2"),
            ]
            if line.dashed { legendLine.append(("stroke-dasharray", "6 4")) }
            children.append(SVGElement("line", legendLine))
            children.append(SVGElement("text", [("x", n(plotLeft + 40)), ("y", n(legendY + 4))], text: line.name))
            elements.append(SVGElement("g", [("class", "series"), ("data-name", line.name)], children: children))
        }
        return elements
    }

    /// 1, 2 or 5 times a power of ten, at least `value` (the top of the y axis).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for factor in [1.0, 2, 2.5, 5, 10] where factor * power >= value { return factor * power }
        return 10 * power
    }

    static func label(_ value: Double) -> String {
        if value >= 10_000 { return String(format: "%.0fk", value / 1000) }
        if value >= 10 || value == 0 { return String(format: "%.0f", value) }
        return String(format: "%.2f", value)
    }
}
