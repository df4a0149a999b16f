/// `count` and the noun, in the form that agrees: "1 entry", "2 entries".
public func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
