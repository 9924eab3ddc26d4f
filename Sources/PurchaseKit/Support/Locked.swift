#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock, for the few places where an actor would force
/// callers to `await` (log handlers, the manual clock's `now`).
///
/// `Synchronization.Mutex` would do, but needs iOS 18 / macOS 15. The lock
/// lives in the same allocation as the value (an `NSLock` would be an object
/// of its own): the engine makes a few of these for every purchase.
/// `Value` must be `Sendable`: whatever a caller takes out of the lock may
/// then cross threads, so only sendable state may be kept here.
///
/// Copies share one value and one lock, as references to a class would.
///
/// `@unchecked Sendable` is safe: the value is only touched inside
/// `withLock`, under the lock, and is itself `Sendable`.
package struct Locked<Value: Sendable>: @unchecked Sendable {
    private let storage: Storage

    /// Creates a lock around `value`.
    package init(_ value: Value) { storage = Storage.make(value) }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    #if canImport(Darwin)
    typealias PlatformLock = os_unfair_lock
    #else
    typealias PlatformLock = pthread_mutex_t
    #endif

    /// The value as the buffer's header, the lock as its one element.
    private final class Storage: ManagedBuffer<Value, PlatformLock> {
        static func make(_ value: Value) -> Storage {
            let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { lock in
                #if canImport(Darwin)
                lock.initialize(to: os_unfair_lock())
                #else
                lock.initialize(to: pthread_mutex_t())
                pthread_mutex_init(lock, nil)
                #endif
            }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { lock in
                #if !canImport(Darwin)
                pthread_mutex_destroy(lock)
                #endif
                _ = lock.deinitialize(count: 1)
            }
        }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try withUnsafeMutablePointers { value, lock in
                #if canImport(Darwin)
                os_unfair_lock_lock(lock)
                defer { os_unfair_lock_unlock(lock) }
                #else
                pthread_mutex_lock(lock)
                defer { pthread_mutex_unlock(lock) }
                #endif
                return try body(&value.pointee)
            }
        }
    }
}
