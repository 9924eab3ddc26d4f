import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A failure of the demo itself (not of PurchaseKit), printed as its message.
struct DemoError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The files of one story, in the state folder:
///
/// ```
/// store.json     the simulated App Store account (SimulatedPaymentQueue.saveState)
/// backend.json   the app's server and the world outside the app: the clock,
///                the order-id counter, the delivery ledger, the users seen
/// orders/        the app's JournalOrderStore
/// ```
struct DemoPaths: Sendable {
    let root: URL

    init(_ path: String) {
        root = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    var storeFile: URL { root.appendingPathComponent("store.json") }
    var backendFile: URL { root.appendingPathComponent("backend.json") }
    var ordersDirectory: URL { root.appendingPathComponent("orders", isDirectory: true) }

    /// Whether a story was started here.
    var exists: Bool { FileManager.default.fileExists(atPath: backendFile.path) }

    /// Creates the folder, refusing a non-empty folder that holds no story:
    /// the demo never writes into someone else's files.
    ///
    /// A folder that holds only what a run killed before its first save leaves
    /// behind is a story in the making, not someone else's: the temporary file
    /// of an interrupted atomic write (Foundation names them `.dat.nosync…`)
    /// and the order store's own folders. Its temporary files are removed and
    /// the story starts there, so that a kill at any moment leaves a folder the
    /// next launch opens.
    func prepare() throws {
        let manager = FileManager.default
        if !exists, let contents = try? manager.contentsOfDirectory(atPath: root.path), !contents.isEmpty {
            guard contents.allSatisfy(isLeftover) else {
                throw DemoError(message: "'\(root.path)' is not empty and holds no demo state; choose another folder with --state-dir.")
            }
            for name in contents where Self.isInterruptedWrite(name) {
                try manager.removeItem(at: root.appendingPathComponent(name))
            }
        }
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The folders the order store makes in its directory: `JournalOrderStore`'s, and
    /// those of `FileOrderStore`, which wrote the folders of earlier versions of the demo.
    static let orderStoreFolders: Set<String> = ["journal", "quarantine", "orders", "archive", "ledger"]

    /// Whether `name` is the temporary file of an atomic write that never reached its rename.
    static func isInterruptedWrite(_ name: String) -> Bool { name.hasPrefix(".dat.nosync") }

    /// Whether an entry of a folder without a story is one the demo itself makes.
    private func isLeftover(_ name: String) -> Bool {
        let url = root.appendingPathComponent(name)
        if Self.isInterruptedWrite(name) { return Self.type(of: url) == .typeRegular }
        guard name == ordersDirectory.lastPathComponent, Self.type(of: url) == .typeDirectory,
              let inside = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return false }
        return inside.allSatisfy { Self.orderStoreFolders.contains($0) && Self.type(of: url.appendingPathComponent($0)) == .typeDirectory }
    }

    /// The type of an entry, a symbolic link not followed.
    private static func type(of url: URL) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    }
}

/// What the world outside the app remembers between runs. Everything here is
/// saved the moment it changes, because none of it belongs to the app: a
/// crashed app does not roll back the server's ledger or the time of day.
struct BackendState: Codable, Sendable {
    static let currentVersion = 1

    var version = BackendState.currentVersion
    /// The manual clock's time.
    var now: Date
    /// Simulated subscription seconds per clock second (the configuration's time rate).
    var timeRateFactor: Double
    /// The next order number the app's server hands out (`order-1`, `order-2`...).
    var nextOrderNumber = 1
    /// The app's logged-in user: the last one named on the command line.
    var currentUser: String?
    /// Every user the app has bought or restored for, sorted.
    var users: [String] = []
    /// The deliveries the server recorded, one per transaction.
    var credits: [Credit] = []
}

/// The app's server, persisted: it makes order ids and keeps the delivery
/// ledger that makes a second delivery of a transaction an `alreadyDelivered`.
actor Backend {
    private(set) var state: BackendState
    private let url: URL

    init(url: URL, fresh: BackendState) throws {
        self.url = url
        if FileManager.default.fileExists(atPath: url.path) {
            let data = try Data(contentsOf: url)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let loaded: BackendState
            do {
                loaded = try decoder.decode(BackendState.self, from: data)
            } catch {
                throw DemoError(message: "'\(url.lastPathComponent)' in the state folder is damaged; remove the folder to start a new story.")
            }
            guard loaded.version <= BackendState.currentVersion else {
                throw DemoError(message: "The state folder was written by a newer purchasekit-demo.")
            }
            state = loaded
        } else {
            state = fresh
            try Self.write(fresh, to: url)
        }
    }

    private static func write(_ state: BackendState, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        DemoKillSwitch.beforeWrite()
        try encoder.encode(state).write(to: url, options: .atomic)
    }

    private func save() throws {
        try Self.write(state, to: url)
    }

    /// A new order id, durable before it is handed out.
    func makeOrderID() throws -> String {
        let number = state.nextOrderNumber
        state.nextOrderNumber += 1
        try save()
        return "order-\(number)"
    }

    /// Remembers a user, so that `orders` can list everyone's orders.
    func noteUser(_ userID: String) throws {
        guard !userID.isEmpty, !state.users.contains(userID) else { return }
        state.users.append(userID)
        state.users.sort()
        try save()
    }

    /// The credit recorded for a transaction, if any.
    func credit(transactionID: String) -> Credit? {
        state.credits.first { $0.transactionID == transactionID }
    }

    /// Records a delivery, durably, before the server answers `delivered`.
    func record(_ credit: Credit) throws {
        guard self.credit(transactionID: credit.transactionID) == nil else { return }
        state.credits.append(credit)
        try noteUser(credit.userID)
        try save()
    }

    /// Remembers the logged-in user for the next runs.
    func setCurrentUser(_ userID: String) throws {
        guard state.currentUser != userID else { return }
        state.currentUser = userID
        try save()
    }

    /// Saves the clock's time.
    func setNow(_ date: Date) throws {
        state.now = date
        try save()
    }
}

/// Order ids from the backend: `order-1`, `order-2`, ... across runs.
struct BackendOrderGenerator: OrderGenerator {
    let backend: Backend

    func makeOrderID(for request: OrderRequest) async throws -> String {
        try await backend.noteUser(request.userID)
        return try await backend.makeOrderID()
    }
}
