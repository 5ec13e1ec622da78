import { type ListingData, listingPrice } from './listing-data';

/**
 * A listing item exactly as RealEstateList returns it (section 2.4): ID an integer, LATITUDE and
 * LONGITUDE numbers, every other member a string ("" when absent), ExtensionColumn the serialized
 * list. Built once at write time and stored, so a list page is a concatenation of stored strings.
 */
export interface WireListingItem {
  ID: number;
  PropertyType: string;
  SaleType: string;
  Status: string;
  Images: string;
  CurrencySymbol: string;
  Price: string;
  State: string;
  City: string;
  Address: string;
  ZIP: string;
  Area: string;
  Url: string;
  Tours: string;
  MLSNumber: string;
  Description: string;
  SpaceType: string;
  LATITUDE: number;
  LONGITUDE: number;
  Bathrooms: string;
  Bedrooms: string;
  YearBuilt: string;
  DaysOnMarket: string;
  LotArea: string;
  BuildingArea: string;
  ParkingSpots: string;
  ExtensionColumn: string;
  RentPrice: string;
  DepositFee: string;
  SalePrice: string;
  UnitAreaPrice: string;
  EstimatePrice: string;
  HOAMonth: string;
}

const num = (n: number | undefined): string => (n === undefined ? '' : String(n));
const money = (n: number | undefined): string => (n === undefined ? '' : n.toFixed(2));

export function toWireItem(id: number, d: ListingData): WireListingItem {
  return {
    ID: id,
    PropertyType: d.PropertyType,
    SaleType: d.SaleType,
    Status: d.Status,
    Images: d.Images && d.Images.length > 0 ? JSON.stringify(d.Images) : '',
    CurrencySymbol: d.CurrencySymbol,
    Price: money(listingPrice(d)),
    State: d.State ?? '',
    City: d.City ?? '',
    Address: d.Address ?? '',
    ZIP: d.ZIP ?? '',
    Area: d.AreaUnit,
    Url: d.Url,
    Tours: d.Tours ?? '',
    MLSNumber: d.MLSNumber,
    Description: d.Description ?? '',
    SpaceType: d.SpaceType ?? '',
    LATITUDE: d.Latitude ?? 0,
    LONGITUDE: d.Longitude ?? 0,
    Bathrooms: num(d.Bathrooms),
    Bedrooms: num(d.Bedrooms),
    YearBuilt: num(d.YearBuilt),
    DaysOnMarket: num(d.DaysOnMarket),
    LotArea: num(d.LotArea),
    BuildingArea: num(d.BuildingArea),
    ParkingSpots: num(d.ParkingSpots),
    ExtensionColumn: d.ExtensionColumn && d.ExtensionColumn.length > 0 ? JSON.stringify(d.ExtensionColumn) : '',
    RentPrice: money(d.RentPrice),
    DepositFee: money(d.DepositFee),
    SalePrice: money(d.SalePrice),
    UnitAreaPrice: money(d.UnitAreaPrice),
    EstimatePrice: money(d.EstimatePrice),
    HOAMonth: money(d.HOAMonth),
  };
}
