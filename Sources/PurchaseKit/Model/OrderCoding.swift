import Foundation

/// The JSON form of orders, shared by every store that writes them to bytes,
/// so that a file written by one can be read by another.
///
/// Dates are written as seconds since the Foundation reference date
/// (2001-01-01 UTC) so that they round-trip exactly.
public enum OrderCoding {
    /// Encodes an order as JSON.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed``.
    public static func encode(_ order: Order) throws(PurchaseKitError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .deferredToDate
        do {
            return try encoder.encode(order)
        } catch {
            throw PurchaseKitError(.persistenceWriteFailed, "Order '\(order.id)' could not be encoded.",
                                   advice: "This is a bug in PurchaseKit; please report it.", underlying: error)
        }
    }

    /// Decodes an order, refusing garbage, truncation, wrong types and future
    /// schema versions with a typed error that names the field at fault.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceCorrupt``.
    public static func decode(_ data: Data) throws(PurchaseKitError) -> Order {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        do {
            return try decoder.decode(Order.self, from: data)
        } catch let error as DecodingError {
            throw PurchaseKitError.corrupt(error, what: "an order document of \(data.count) bytes")
        } catch {
            throw PurchaseKitError(.persistenceCorrupt, "An order document of \(data.count) bytes is not valid JSON.",
                                   advice: "Move the file aside; the other orders are unaffected.", underlying: error)
        }
    }
}
