/// The serial executor an actor of this package runs its code on: one it was
/// given, or, by default, the default executor of an empty actor it owns, so
/// that it behaves exactly as a default actor does.
///
/// The fault simulation gives the engine, the simulated store and the
/// simulated server the executor of the run's one thread. Sharing one serial
/// executor, they call each other without a switch of executor, where each
/// call would otherwise be a job queued on that thread and run later.
package struct ActorExecutor: Sendable {
    /// Keeps the borrowed default executor's actor alive.
    private let anchor: Anchor?
    package let executor: UnownedSerialExecutor

    /// The given executor, or the default one of an actor of its own.
    package init(_ given: UnownedSerialExecutor? = nil) {
        if let given {
            anchor = nil
            executor = given
        } else {
            let anchor = Anchor()
            self.anchor = anchor
            executor = anchor.unownedExecutor
        }
    }

    /// An actor with nothing in it, for its default executor.
    private actor Anchor {}
}
