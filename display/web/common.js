// Shared by the table's page and the croupier's page: counts in words, and the chips.
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

const CHIP_COLOURS = ["#1f5fbf", "#b8262e", "#6b2fa0", "#c77a00", "#0f7f6f", "#444", "#a0522d", "#2e7d32"];
const punterColour = {};
function colourOf(punter) {
  if (!(punter in punterColour)) {
    punterColour[punter] = CHIP_COLOURS[Object.keys(punterColour).length % CHIP_COLOURS.length];
  }
  return punterColour[punter];
}

function chipFor(bet, copperedWord) {
  const chip = document.createElement("span");
  chip.className = "chip" + (bet.coppered ? " coppered" : "");
  chip.style.background = colourOf(bet.punter);
  chip.title = `${bet.punter} ${bet.stake} ${bet.spot}${bet.coppered ? " " + copperedWord : ""}`;
  chip.textContent = bet.punter.slice(0, 1).toUpperCase() + bet.stake;
  chip.dataset.punter = bet.punter;
  chip.dataset.spot = bet.spot;
  return chip;
}

// A bet on two to four ranks lies where their cards meet, as on the felt (003): between two
// neighbours, on the corner of a square. Where that point is the middle of a card (three in
// a row, or J and K across the queen) the chip goes to the card's outer edge instead, so it
// is not taken for a bet on that card alone. Chips on the same place step aside.
function placeGroupChips(groups, copperedWord) {
  const layout = document.getElementById("layout");
  layout.querySelectorAll(".chip.group").forEach((chip) => chip.remove());
  const taken = {};
  for (const bet of groups) {
    const cards = bet.ranks.map((rank) => document.querySelector(`.spade[data-rank="${rank}"]`));
    const x = cards.reduce((sum, card) => sum + card.offsetLeft + card.offsetWidth / 2, 0) / cards.length;
    let y = cards.reduce((sum, card) => sum + card.offsetTop + card.offsetHeight / 2, 0) / cards.length;
    let outward = 0;  // in rem: off the card's edge, clear of the chips that lie on it
    for (const card of document.querySelectorAll(".spade")) {
      const inside = x > card.offsetLeft && x < card.offsetLeft + card.offsetWidth &&
                     y > card.offsetTop && y < card.offsetTop + card.offsetHeight;
      if (!inside) continue;
      const topRow = card.style.gridRow === "1";
      y = topRow ? card.offsetTop : card.offsetTop + card.offsetHeight;
      outward = topRow ? -0.9 : 0.9;
    }
    const place = `${Math.round(x)},${Math.round(y)}`;
    const step = taken[place] = (taken[place] || 0) + 1;
    const chip = chipFor(bet, copperedWord);
    chip.classList.add("group");
    chip.style.left = `${x}px`;
    chip.style.top = `calc(${y}px + ${outward + (step - 1) * (outward < 0 ? -2.8 : 2.8)}rem)`;
    layout.appendChild(chip);
  }
}
