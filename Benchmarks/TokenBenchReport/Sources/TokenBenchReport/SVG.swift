import Foundation

/// A minimal SVG writer: elements with escaped attributes and text, nothing else. Written here
/// rather than taken from a package: none in this machine's package set writes SVG, and the
/// plots need about a dozen element kinds.
public struct SVGElement: Sendable {
    public var name: String
    public var attributes: [(String, String)]
    public var children: [SVGElement]
    public var text: String?

    public init(_ name: String, _ attributes: [(String, String)] = [], text: String? = nil, children: [SVGElement] = [])
    {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
    }

    public func render(indent: String = "") -> String {
        let attributeText = attributes.map { " \($0.0)=\"\(Self.escape($0.1))\"" }.joined()
        if children.isEmpty && text == nil { return "\(indent)<\(name)\(attributeText)/>" }
        if children.isEmpty { return "\(indent)<\(name)\(attributeText)>\(Self.escape(text!))</\(name)>" }
        let inner = children.map { $0.render(indent: indent + "  ") }.joined(separator: "\n")
        return "\(indent)<\(name)\(attributeText)>\(text.map(Self.escape) ?? "")\n\(inner)\n\(indent)</\(name)>"
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A number as SVG wants it: short, with a dot.
    static func number(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// A standalone SVG document.
public struct SVGDocument: Sendable {
    public var width: Double
    public var height: Double
    public var elements: [SVGElement]

    public init(width: Double, height: Double, elements: [SVGElement]) {
        self.width = width
        self.height = height
        self.elements = elements
    }

    public func render() -> String {
        let root = SVGElement(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", SVGElement.number(width)),
                ("height", SVGElement.number(height)),
                ("viewBox", "0 0 \(SVGElement.number(width)) \(SVGElement.number(height))"),
                ("font-family", "sans-serif"), ("font-size", "12"),
            ],
            children: [SVGElement("rect", [("width", "100%"), ("height", "100%"), ("fill", "white")])] + elements)
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + root.render() + "\n"
    }
}
