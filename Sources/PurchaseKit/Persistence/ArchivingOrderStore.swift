/// A built-in store that writes an order's last save and its move to the
/// archive as one change: one journal record, one pass under a lock. The
/// engine uses it for a step that saves an order and archives it at once (a
/// purchase completed, failed or cancelled); any other store gets a save,
/// then ``OrderStore/archive(orderID:)``.
package protocol ArchivingOrderStore: OrderStore {
    /// Whether the engine saves into the archive through this store: a
    /// wrapper answers for the store it wraps. True unless a conformance says otherwise.
    var savesIntoArchive: Bool { get }

    /// Saves `order` straight into the archive: what ``OrderStore/save(_:)``
    /// then ``OrderStore/archive(orderID:)`` would leave, but as one change,
    /// so that when it throws, neither happened. It claims the order's
    /// transaction and token as a save does, and is durable when it returns
    /// exactly when a save of the same order would be.
    func saveArchived(_ order: Order) async throws
}

extension ArchivingOrderStore {
    package var savesIntoArchive: Bool { true }
}
