/// The continuation every suspension in PurchaseKit waits on: a purchase call
/// waiting for its order, a timed call for its answer, a waiter for an
/// order's lock, a save for the journal's flush.
///
/// Each one is resumed exactly once, by the structure that holds it: a lock
/// hands a waiter over once, a waiting call is answered once, a timed call's
/// first result takes the waiter out under its lock. A debug build (the
/// test suite, and its thread-sanitizer run) checks that: it uses Swift's
/// checked continuations, which trap on a second resume and report one
/// dropped without a resume, naming the function that suspended. A release
/// build uses unsafe continuations, the same calls without the checks, whose
/// allocation, reference counting and generic metadata at every suspension
/// came to about 8 % of an in-memory purchase's CPU (see the benchmarks'
/// README). The suites that run many purchases at once, and the fault
/// simulation's 10,000 seeds, also run in a release build: unchecked.
#if DEBUG
typealias Suspension<T, E: Error> = CheckedContinuation<T, E>
#else
typealias Suspension<T, E: Error> = UnsafeContinuation<T, E>
#endif

/// Suspends until `body`'s continuation is resumed, on the caller's actor.
@inline(__always)
func suspend<T>(isolation: isolated (any Actor)? = #isolation, function: String = #function,
                _ body: (Suspension<T, Never>) -> Void) async -> sending T {
    #if DEBUG
    await withCheckedContinuation(isolation: isolation, function: function, body)
    #else
    await withUnsafeContinuation(isolation: isolation, body)
    #endif
}

/// Suspends until `body`'s continuation is resumed or throws, on the caller's actor.
@inline(__always)
func suspendThrowing<T>(isolation: isolated (any Actor)? = #isolation, function: String = #function,
                        _ body: (Suspension<T, any Error>) -> Void) async throws -> sending T {
    #if DEBUG
    try await withCheckedThrowingContinuation(isolation: isolation, function: function, body)
    #else
    try await withUnsafeThrowingContinuation(isolation: isolation, body)
    #endif
}
