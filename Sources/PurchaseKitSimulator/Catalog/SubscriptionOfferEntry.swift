import Foundation
import PurchaseKit

/// One entry of `adHocOffers` (promotional), `codeOffers` or `winbackOffers`:
/// the offer's terms as an introductory offer has them, and its identifier
/// (`offerID`; offer codes have none in the file, so their `referenceName`).
struct SubscriptionOfferEntry {
    enum CodingKeys: String, CodingKey {
        case offerID, referenceName, internalID, eligibility
    }

    var offer: SubscriptionOffer

    init(from decoder: any Decoder, kind: SubscriptionOffer.Kind) throws {
        let terms = try OfferEntry(from: decoder).offer
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decodeIfPresent(String.self, forKey: .offerID)
            ?? container.decodeIfPresent(String.self, forKey: .referenceName)
            ?? container.decodeIfPresent(String.self, forKey: .internalID)
        guard let id, !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .offerID, in: container,
                                                   debugDescription: "expected an offerID or a referenceName")
        }
        // Eligibility is a list of words for offer codes; other shapes (newer files) are ignored.
        let words = (try? container.decodeIfPresent([String].self, forKey: .eligibility)) ?? nil
        offer = SubscriptionOffer(id: id, kind: kind, paymentMode: terms.paymentMode, period: terms.period,
                                  periodCount: terms.periodCount, displayPrice: terms.displayPrice,
                                  eligibility: (words ?? []).compactMap(SubscriptionOffer.Eligibility.init(rawValue:)))
    }

    /// The offers of one list, each checked, a bad one failing with its index.
    static func decodeList(_ container: KeyedDecodingContainer<ProductEntry.CodingKeys>, forKey key: ProductEntry.CodingKeys,
                           kind: SubscriptionOffer.Kind) throws -> [SubscriptionOffer] {
        guard container.contains(key), !((try? container.decodeNil(forKey: key)) ?? false) else { return [] }
        var list = try container.nestedUnkeyedContainer(forKey: key)
        var offers: [SubscriptionOffer] = []
        while !list.isAtEnd {
            offers.append(try SubscriptionOfferEntry(from: try list.superDecoder(), kind: kind).offer)
        }
        return offers
    }
}
