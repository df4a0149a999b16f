/// How the chain fuzz harness (FuzzChain) and the replay of its corpus read an input: DER items,
/// each a tag, a short or long (up to 4 bytes) length and as many bytes as the length says (the last
/// one cut short), at most 10: the certificates of a chain, leaf first.
public enum DERItems {
    public static func split(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        let bytes = Array(bytes)
        var items: [[UInt8]] = []
        var index = 0
        while index < bytes.count, items.count < 10 {
            var end = index + 2
            var length = 0
            if index + 1 < bytes.count {
                let first = Int(bytes[index + 1])
                if first < 0x80 {
                    length = first
                } else {
                    let count = min(first & 0x7F, 4)
                    for offset in 0..<count where index + 2 + offset < bytes.count {
                        length = length << 8 | Int(bytes[index + 2 + offset])
                    }
                    end += count
                }
            }
            end = min(bytes.count, end + length)
            items.append(Array(bytes[index..<end]))
            index = end
        }
        return items
    }
}
