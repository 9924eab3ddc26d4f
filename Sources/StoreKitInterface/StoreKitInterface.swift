// StoreKitInterface: the part of Apple's StoreKit 2 interface that
// PurchaseKitStoreKit calls, transcribed so that the adapter's StoreKit code
// is typechecked where StoreKit does not exist (Linux CI).
//
// Every public declaration here is copied from Apple's published StoreKit
// interface: its name, signature, conformances and `@available` attributes,
// as facts. Nothing is added to Apple's public surface; what a declaration
// does here is scripted by `ScriptedAppStore` (package access, for this
// package's tests only). Where StoreKit exists, the whole module is empty, so
// it can never shadow the real framework.
//
// Apple's interface does not show the raw values behind its static
// constants (`Product.ProductType.consumable`...). Those here are the App
// Store Server API's documented values; the adapter compares constants and
// never reads a raw value, so nothing depends on them.
