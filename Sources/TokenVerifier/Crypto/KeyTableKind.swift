/// A kind of per-key precomputed table, as ``KeyTableBuilder`` sees it: its name (the key of
/// ``VerificationOptions/tableMemory`` and of `verify --table-memory NAME=BYTES`), which keys have
/// one, what one takes, the memory a key set's tables of the kind may take by default, and
/// whether this process has the table path (``SignaturePath``).
struct KeyTableKind: Sendable {
    /// The kind's name: `es256`, `ed25519`.
    let name: String
    /// The path this build and its libraries give the kind's algorithm, whatever the options.
    let path: @Sendable () -> SignaturePath
    /// The key's table holder, when the key is of this kind.
    let key: @Sendable (VerificationKey) -> (any KeyWithTable)?
    /// The memory one table takes.
    let bytesPerTable: Int
    /// The memory a key set's tables of this kind may take unless the options say otherwise.
    var defaultMemory = 64 << 20

    /// The memory, in bytes, that a key set's tables of this kind may take under `options`: none
    /// where `TOKENVERIFY_SIGNATURE_PATH=standard` keeps every key on the library's own call.
    func memory(_ options: VerificationOptions, cap: SignaturePathCap = .current) -> Int {
        cap == .standard ? 0 : options.tableMemory[kind: name] ?? defaultMemory
    }

    /// Every kind of table, in the order their builds are asked for. A new kind is its table type
    /// (declaring its `kind`) and one line here.
    static let all: [KeyTableKind] = [P256KeyTable.kind, Ed25519KeyTable.kind]
}

extension VerificationOptions {
    /// The names of the kinds of per-key table, with the bytes one table takes: the names
    /// ``TableMemory`` answers to.
    public static var tableKinds: [(name: String, bytesPerTable: Int)] {
        KeyTableKind.all.map { ($0.name, $0.bytesPerTable) }
    }
}

/// A public key that can have a precomputed table: the table, once built, and how to ask for it.
protocol KeyWithTable: AnyObject {
    associatedtype Table: AnyObject & Sendable

    /// The key's table: asked for on first use, published once when ready.
    var lazyTable: LazyKeyTable<Table> { get }

    /// Asks for the key's table (built in the background, within its key set's budget).
    func requestTable()
}

extension KeyWithTable {
    /// Gives the key its key set's budget for tables of its kind.
    func arm(_ budget: TableBudget) {
        lazyTable.arm(budget)
    }
}
