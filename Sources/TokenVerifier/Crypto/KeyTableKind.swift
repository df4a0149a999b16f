/// A kind of per-key precomputed table, as ``KeyTableBuilder`` sees it: which keys have one, what
/// one takes, and the option that caps the memory of a key set's tables of the kind.
struct KeyTableKind: Sendable {
    /// The key's table holder, when the key is of this kind.
    let key: @Sendable (VerificationKey) -> (any KeyWithTable)?
    /// The memory one table takes.
    let bytesPerTable: Int
    /// The memory, in bytes, that a key set's tables of this kind may take under `options`.
    let memory: @Sendable (VerificationOptions) -> Int

    /// Every kind of table, in the order their builds are asked for. A new kind is its table type
    /// (declaring its `kind`) and one line here.
    static let all: [KeyTableKind] = [P256KeyTable.kind, Ed25519KeyTable.kind]
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
