import Foundation
import TokenBenchReport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

final class PlotTests: XCTestCase {
    func testEverySVGIsWellFormedXMLWithTheExpectedSeries() throws {
        let files = Plots.render(Fixtures.report())
        XCTAssertEqual(Set(files.keys), ["latency-ed25519.svg", "scaling.svg"])
        let latency = try SVGReader(files["latency-ed25519.svg"]!)
        XCTAssertEqual(latency.series, ["ed25519 latency"])
        XCTAssertEqual(latency.polylinePoints.first?.count, 6, "one point per recorded percentile")
        XCTAssertTrue(latency.texts.contains("99.9%") && latency.texts.contains("99%") && latency.texts.contains("90%"))
        let scaling = try SVGReader(files["scaling.svg"]!)
        XCTAssertEqual(
            Set(scaling.series),
            [
                "ed25519 tokens/s", "ed25519 raw/s", "es256 tokens/s", "es256 raw/s",
                "ed25519 efficiency", "es256 efficiency",
            ])
        XCTAssertTrue(scaling.polylinePoints.allSatisfy { $0.count == 2 }, "one point per thread count")
    }

    /// The percentile axis is log(1 / (1 − p)): 90% is one step, 99% two, 99.9% three.
    func testLatencyPointsAreEvenlySpacedPerNine() throws {
        let svg = try XCTUnwrap(Plots.latencyChart(Fixtures.report().scenarios[2]))
        let points = try XCTUnwrap(SVGReader(svg).polylinePoints.first)
        let xs = points.map(\.0)  // percentiles 0, 50, 90, 99, 99.9, 100 (max at the last tick)
        XCTAssertEqual(xs[3] - xs[2], xs[4] - xs[3], accuracy: 0.2)
        XCTAssertEqual(xs[2] - xs[0], xs[3] - xs[2], accuracy: 0.2)
        let ys = points.map(\.1)
        XCTAssertLessThan(ys[3], ys[2], "p99 (12 ms) is drawn above p90")
    }

    func testTextIsEscaped() throws {
        let element = SVGElement("text", [("data-name", "a \"b\" <c>")], text: "x & y < z")
        XCTAssertEqual(element.render(), #"<text data-name="a &quot;b&quot; &lt;c&gt;">x &amp; y &lt; z</text>"#)
        _ = try SVGReader(SVGDocument(width: 10, height: 10, elements: [element]).render())
    }
}

/// Parses an SVG with XMLParser (failing on malformed XML) and keeps what the tests look at.
final class SVGReader: NSObject, XMLParserDelegate {
    var series: [String] = []
    var polylinePoints: [[(Double, Double)]] = []
    var texts: [String] = []
    private var text = ""

    init(_ svg: String) throws {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? NSError(domain: "SVGReader", code: 1) }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "g", attributes["class"] == "series", let series = attributes["data-name"] {
            self.series.append(series)
        }
        if name == "polyline", let points = attributes["points"] {
            polylinePoints.append(
                points.split(separator: " ").map { pair in
                    let values = pair.split(separator: ",").compactMap { Double($0) }
                    return (values[0], values[1])
                })
        }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { texts.append(text) }
    }
}
