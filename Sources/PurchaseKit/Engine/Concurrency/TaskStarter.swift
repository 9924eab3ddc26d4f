/// Starts the engine's unstructured tasks: background deliveries, retry and
/// timeout timers, stream clean-up.
///
/// An app never sets it. The fault simulation gives the engine one that
/// starts every task on an executor the simulation drives, so that a replayed
/// seed takes the same path on any machine, under any load: unstructured
/// tasks do not inherit a task executor preference, so the engine must be
/// told where to start them.
package protocol TaskStarter: Sendable {
    /// Starts `operation` as a new top-level task.
    @discardableResult
    func start(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never>
}

/// Starts tasks on the global concurrent executor, as `Task { }` does.
package struct DefaultTaskStarter: TaskStarter {
    package init() {}

    @discardableResult
    package func start(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task { await operation() }
    }
}
