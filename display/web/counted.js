// Shared by the table's page and the croupier's page.
"use strict";

// The form of a noun after a number: [one, many] in English and Spanish; [one, few, many]
// in Russian (1 карта, 2 карты, 5 карт, 21 карта).
function counted(number, forms) {
  if (forms.length === 2) return number === 1 ? forms[0] : forms[1];
  const tens = number % 100, units = number % 10;
  if (units === 1 && tens !== 11) return forms[0];
  if (units >= 2 && units <= 4 && (tens < 12 || tens > 14)) return forms[1];
  return forms[2];
}
