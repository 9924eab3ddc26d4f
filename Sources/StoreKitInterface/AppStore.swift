#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface: `AppStore`,
// `AppStore.canMakePayments`.
/// Contains properties and methods to facilitate interactions between your app and the App Store.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum AppStore {

    public static var canMakePayments: Bool { ScriptedAppStore.current?.canMakePayments ?? false }
}

// Transcribed from Apple's published StoreKit interface: `AppStore.Environment`.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension AppStore {

    /// Represents a server environment used for in-app purchases.
    public struct Environment : RawRepresentable, Equatable, Hashable, Sendable {

        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        /// The environment for apps downloaded from the App Store.
        public static let production = AppStore.Environment(rawValue: "Production")

        /// The environment for the App Store Sandbox or apps downloaded from TestFlight.
        public static let sandbox = AppStore.Environment(rawValue: "Sandbox")

        /// The environment for StoreKit Testing in Xcode, including unit tests with StoreKitTest.
        public static let xcode = AppStore.Environment(rawValue: "Xcode")

        @available(iOS 16.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, macOS 13.0, *)
        public typealias RawValue = String
    }
}

// Transcribed from Apple's published StoreKit interface: `AppStore.sync()`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension AppStore {

    /// Sync signed transaction and renewal info with the App Store.
    ///
    /// - Important: This will prompt the user to authenticate, only call this function on user interaction.
    /// - Throws: If the user does not authenticate successfully, or if StoreKit cannot connect to the
    ///           App Store.
    public static func sync() async throws {
        guard let store = ScriptedAppStore.current else { throw StoreKitError.unknown }
        try await store.sync()
    }
}

// Transcribed from Apple's published StoreKit interface: `AppStore : Sendable`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension AppStore : Sendable {
}
#endif
