import PurchaseKit

extension SimulatedPaymentQueue {
    /// Sends a batch through the delivery faults: held back, or delivered once
    /// plus `faults.extraDeliveries` duplicates.
    func send(_ updates: [TransactionUpdate], faults: DeliveryFaults) async {
        guard !updates.isEmpty else { return }
        if holdsAllUpdates || faults.holdsUpdates {
            heldUpdates.append(contentsOf: updates)
            return
        }
        await deliver(updates, extraDeliveries: faults.extraDeliveries)
    }

    /// Delivers to the observer, or keeps what attach will not replay.
    func deliver(_ updates: [TransactionUpdate], extraDeliveries: Int = 0) async {
        guard let observer = observer.value else {
            // Transactions are replayed from the records on attach; keep the rest.
            undelivered.append(contentsOf: updates.filter { $0.transaction == nil })
            return
        }
        markSeen(updates)
        await observer.paymentQueue(didUpdate: updates)
        for _ in 0..<extraDeliveries {
            await observer.paymentQueue(didUpdate: updates)
        }
    }

    /// Records that revocations reached an observer, so attach stops replaying them.
    func markSeen(_ updates: [TransactionUpdate]) {
        for update in updates where update.kind == .revoked {
            if let id = update.transaction?.id, let index = recordIndex[id] {
                records[index].revocationSeen = true
            }
        }
    }

    /// Holds every coming update back (late delivery) until ``releaseHeldUpdates(order:)``.
    public func setHoldsUpdates(_ holds: Bool) {
        holdsAllUpdates = holds
    }

    /// How many updates are held back.
    public func heldUpdateCount() -> Int {
        heldUpdates.count
    }

    /// Delivers the held-back updates, one batch each, in `order`, and stops holding.
    /// `.shuffled` draws from the seeded generator.
    public func releaseHeldUpdates(order: ReleaseOrder = .asProduced) async {
        var batch = heldUpdates
        heldUpdates = []
        holdsAllUpdates = false
        switch order {
        case .asProduced: break
        case .reversed: batch.reverse()
        case .shuffled: batch.shuffle(using: &random)
        }
        for update in batch {
            await deliver([update])
        }
    }
}
