// The command picker (type "/"), a chosen command's options with the bot's autocomplete, and the bot's forms.
"use strict";

const Picker = (() => {
  const { el } = Render;
  const TYPES = { STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11 };
  let app = null; // set by init: { state(), channelId(), post(path, body), toast(text, level), focusComposer() }
  let list = null; // the suggestions popup
  let form = null; // the chosen command's options
  let matches = [];
  let active = 0;
  let current = null; // { command, fields: Map(name -> {option, input, error}) }

  function init(api) {
    app = api;
    list = document.getElementById("picker");
    form = document.getElementById("command-form");
  }

  // ---------------------------------------------------------------- the list of commands

  function commands() {
    return app.state() ? app.state().commands : [];
  }

  function isOpen() {
    return !list.hidden;
  }

  function filter(text) {
    const query = text.replace(/^\//, "").trim().toLowerCase();
    matches = commands().filter((c) => c.name.startsWith(query) || (query && c.name.includes(` ${query}`)));
    if (!matches.length && query) matches = commands().filter((c) => c.name.includes(query));
    active = 0;
    drawList();
  }

  function drawList() {
    list.replaceChildren();
    if (!matches.length) {
      list.append(el("div", "picker-empty", "No command matches. Type / to see them all."));
    }
    // Every command, as Discord lists them: the popup scrolls (a cut-off list hid the last letters' commands).
    matches.forEach((command, index) => {
      const row = el("div", index === active ? "picker-item active" : "picker-item");
      row.id = `pick-${index}`;
      row.setAttribute("role", "option");
      row.setAttribute("aria-selected", String(index === active));
      row.append(el("span", "picker-name", `/${command.name}`));
      row.append(el("span", "picker-description", command.description));
      row.addEventListener("mousedown", (event) => {
        event.preventDefault();
        choose(command);
      });
      list.append(row);
    });
    list.hidden = false;
    const input = document.getElementById("input");
    input.setAttribute("aria-expanded", "true");
    input.setAttribute("aria-activedescendant", matches.length ? `pick-${active}` : "");
    const shown = document.getElementById(`pick-${active}`);
    if (shown) shown.scrollIntoView({ block: "nearest" });
  }

  function closeList() {
    list.hidden = true;
    const input = document.getElementById("input");
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }

  // Keys typed in the message box while the list is open; true when the key was the picker's.
  function onComposerKey(event) {
    if (!isOpen()) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      active = (active + step + matches.length) % Math.max(matches.length, 1);
      drawList();
      return true;
    }
    if ((event.key === "Enter" || event.key === "Tab") && matches.length) {
      choose(matches[active]);
      return true;
    }
    if (event.key === "Escape") {
      closeList();
      return true;
    }
    return false;
  }

  function onComposerInput(text) {
    if (text.startsWith("/") && !text.includes("\n")) filter(text);
    else closeList();
  }

  // ---------------------------------------------------------------- a chosen command's form

  function byName(name) {
    return commands().find((c) => c.name === name) || null;
  }

  function optionsOf(type) {
    const state = app.state();
    if (type === TYPES.USER) return state.people.map((p) => [p.id, p.name]);
    if (type === TYPES.CHANNEL) return state.channels.map((c) => [c.id, `#${c.name}`]);
    if (type === TYPES.ROLE) return state.roles.map((r) => [r.id, `@${r.name}`]);
    return [...state.people.map((p) => [p.id, p.name]), ...state.roles.map((r) => [r.id, `@${r.name}`])];
  }

  function selectInput(pairs, placeholder) {
    const input = el("select");
    const none = el("option", null, placeholder);
    none.value = "";
    input.append(none);
    for (const [value, label] of pairs) {
      const item = el("option", null, label);
      item.value = String(value);
      input.append(item);
    }
    return input;
  }

  function fieldInput(option) {
    const type = option.type;
    if (option.choices && option.choices.length) {
      return selectInput(option.choices.map((c) => [c.value, c.name]), option.required ? "Choose…" : "(leave out)");
    }
    if (type === TYPES.BOOLEAN) return selectInput([["true", "True"], ["false", "False"]], option.required ? "Choose…" : "(leave out)");
    if ([TYPES.USER, TYPES.CHANNEL, TYPES.ROLE, TYPES.MENTIONABLE].includes(type)) {
      return selectInput(optionsOf(type), option.required ? "Choose…" : "(leave out)");
    }
    if (type === TYPES.ATTACHMENT) {
      const input = el("input");
      input.type = "file";
      return input;
    }
    const input = el("input");
    input.type = type === TYPES.INTEGER || type === TYPES.NUMBER ? "number" : "text";
    if (type === TYPES.INTEGER) input.step = "1";
    if (type === TYPES.NUMBER) input.step = "any";
    if (option.min_value !== undefined) input.min = option.min_value;
    if (option.max_value !== undefined) input.max = option.max_value;
    if (option.max_length !== undefined) input.maxLength = option.max_length;
    input.autocomplete = "off";
    input.spellcheck = type === TYPES.STRING;
    return input;
  }

  function choose(command, prefill = {}) {
    closeList();
    const composer = document.getElementById("input");
    composer.value = "";
    current = { command, fields: new Map() };
    form.replaceChildren();
    const head = el("div", "command-head");
    head.append(el("span", "command-name", `/${command.name}`), el("span", "command-description", command.description));
    const cancel = el("button", "command-cancel", "×");
    cancel.type = "button";
    cancel.title = "Cancel (Escape)";
    cancel.setAttribute("aria-label", "Cancel the command");
    cancel.addEventListener("click", closeForm);
    head.append(cancel);
    form.append(head);
    const grid = el("div", "command-fields");
    command.options.forEach((option) => grid.append(field(option, prefill[option.name])));
    if (!command.options.length) grid.append(el("div", "command-hint", "No options: press Enter to send."));
    form.append(grid);
    const actions = el("div", "command-actions");
    const send = el("button", "send-command", "Send");
    send.type = "button";
    send.addEventListener("click", submit);
    actions.append(el("span", "command-hint", "Enter sends · Escape cancels · Tab moves between options"), send);
    form.append(actions);
    form.hidden = false;
    composer.disabled = true;
    const first = form.querySelector("input, select, textarea") || send;
    first.focus();
  }

  function field(option, value) {
    const id = `opt-${option.name}`;
    const box = el("div", "command-field");
    const label = el("label", "field-label", option.name);
    label.htmlFor = id;
    if (option.required) label.append(el("span", "required", " *"));
    const input = fieldInput(option);
    input.id = id;
    input.dataset.option = option.name;
    if (value !== undefined && input.type !== "file") input.value = String(value);
    box.append(label, input);
    if (option.description) box.append(el("div", "field-description", option.description));
    const error = el("div", "field-error");
    error.setAttribute("role", "alert");
    box.append(error);
    const entry = { option, input, error, suggestions: null };
    if (option.autocomplete) attachAutocomplete(entry, box);
    current.fields.set(option.name, entry);
    return box;
  }

  function closeForm() {
    form.hidden = true;
    form.replaceChildren();
    current = null;
    const composer = document.getElementById("input");
    composer.disabled = false;
    app.focusComposer();
  }

  function valueOf(entry) {
    if (entry.input.type === "file") return entry.input.files.length ? entry.input.files[0] : null;
    if (entry.input.dataset.choice !== undefined && entry.input.dataset.choiceName === entry.input.value) {
      return entry.input.dataset.choice;
    }
    return entry.input.value.trim();
  }

  function check(entry, value) {
    const { option } = entry;
    if (value === null || value === "") return option.required ? "This option is required." : null;
    if (option.type === TYPES.INTEGER && !/^-?\d+$/.test(value)) return "A whole number, please.";
    if ([TYPES.INTEGER, TYPES.NUMBER].includes(option.type)) {
      const number = Number(value);
      if (Number.isNaN(number)) return "A number, please.";
      if (option.min_value !== undefined && number < option.min_value) return `At least ${option.min_value}.`;
      if (option.max_value !== undefined && number > option.max_value) return `At most ${option.max_value}.`;
    }
    if (option.type === TYPES.STRING) {
      if (option.min_length !== undefined && value.length < option.min_length) return `At least ${option.min_length} characters.`;
      if (option.max_length !== undefined && value.length > option.max_length) return `At most ${option.max_length} characters.`;
    }
    return null;
  }

  async function submit() {
    if (!current) return;
    const command = current.command;
    const options = {};
    const body = new FormData();
    let firstBad = null;
    const saved = {};
    for (const [name, entry] of current.fields) {
      const value = valueOf(entry);
      const problem = check(entry, value);
      entry.error.textContent = problem || "";
      if (problem && !firstBad) firstBad = entry.input;
      if (problem || value === null || value === "") continue;
      if (value instanceof File) body.append(`option:${name}`, value, value.name);
      else {
        options[name] = value;
        saved[name] = entry.input.value;
      }
    }
    if (firstBad) {
      firstBad.focus();
      return;
    }
    body.append("payload", JSON.stringify({ user: app.state().me.id, channel: app.channelId(), command: command.name, options }));
    closeForm();
    const answer = await app.post("/api/commands", body);
    if (answer && answer.error) {
      app.toast(answer.error, "error");
      choose(command, saved);
    } else if (answer && answer.modal) {
      showModal(answer.modal, answer.interaction_id);
    }
  }

  function onFormKey(event) {
    if (!current) return;
    if (event.key === "Escape") {
      event.preventDefault();
      closeForm();
    } else if (event.key === "Enter" && !event.shiftKey && event.target.tagName !== "BUTTON") {
      event.preventDefault();
      submit();
    }
  }

  // ---------------------------------------------------------------- autocomplete

  function attachAutocomplete(entry, box) {
    const listbox = el("div", "suggestions");
    listbox.setAttribute("role", "listbox");
    listbox.hidden = true;
    box.append(listbox);
    entry.suggestions = { listbox, choices: [], active: 0, timer: null, seq: 0 };
    entry.input.setAttribute("role", "combobox");
    entry.input.setAttribute("aria-autocomplete", "list");
    const ask = () => {
      clearTimeout(entry.suggestions.timer);
      entry.suggestions.timer = setTimeout(() => fetchChoices(entry), 150);
    };
    entry.input.addEventListener("input", () => {
      delete entry.input.dataset.choice;
      ask();
    });
    entry.input.addEventListener("focus", ask);
    entry.input.addEventListener("blur", () => setTimeout(() => { listbox.hidden = true; }, 150));
    entry.input.addEventListener("keydown", (event) => {
      const s = entry.suggestions;
      if (listbox.hidden || !s.choices.length) return;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        s.active = (s.active + (event.key === "ArrowDown" ? 1 : -1) + s.choices.length) % s.choices.length;
        drawChoices(entry);
      } else if (event.key === "Enter" || event.key === "Tab") {
        if (event.key === "Enter") event.preventDefault();
        event.stopPropagation();
        pick(entry, s.choices[s.active]);
      } else if (event.key === "Escape") {
        event.stopPropagation();
        listbox.hidden = true;
      }
    });
  }

  async function fetchChoices(entry) {
    const s = entry.suggestions;
    const seq = ++s.seq;
    const options = {};
    for (const [name, other] of current ? current.fields : []) {
      if (other.input.type === "file") continue;
      const value = name === entry.option.name ? entry.input.value : valueOf(other);
      if (value !== "" && value !== null) options[name] = value;
    }
    const asked = entry.input.value;
    options[entry.option.name] = asked;
    const answer = await app.post("/api/autocomplete", {
      user: app.state().me.id,
      channel: app.channelId(),
      command: current ? current.command.name : "",
      focused: entry.option.name,
      options,
    });
    if (seq !== s.seq || !current) return;
    s.choices = (answer && answer.choices) || [];
    s.active = 0;
    s.listbox.dataset.query = asked; // what the shown suggestions answer
    drawChoices(entry);
  }

  function drawChoices(entry) {
    const s = entry.suggestions;
    s.listbox.replaceChildren();
    s.choices.forEach((choice, index) => {
      const row = el("div", index === s.active ? "suggestion active" : "suggestion", choice.name);
      row.id = `${entry.input.id}-choice-${index}`;
      row.setAttribute("role", "option");
      row.addEventListener("mousedown", (event) => {
        event.preventDefault();
        pick(entry, choice);
      });
      s.listbox.append(row);
    });
    s.listbox.hidden = !s.choices.length;
    entry.input.setAttribute("aria-activedescendant", s.choices.length ? `${entry.input.id}-choice-${s.active}` : "");
  }

  function pick(entry, choice) {
    // A choice made ends the question: a pending or late answer must not open the list again.
    clearTimeout(entry.suggestions.timer);
    entry.suggestions.seq += 1;
    entry.input.value = choice.name;
    entry.input.dataset.choice = String(choice.value);
    entry.input.dataset.choiceName = choice.name;
    entry.suggestions.listbox.hidden = true;
  }

  // ---------------------------------------------------------------- the bot's forms (modals)

  function modalField(component) {
    const box = el("div", "modal-field");
    const inner = component.type === 18 ? component.component : component;
    const labelText = component.type === 18 ? component.label : inner.label;
    const id = `modal-${inner.custom_id}`;
    const label = el("label", "field-label", labelText || inner.custom_id);
    label.htmlFor = id;
    if (inner.required !== false) label.append(el("span", "required", " *"));
    box.append(label);
    if (component.type === 18 && component.description) box.append(el("div", "field-description", component.description));
    let input;
    if (inner.type === 4) {
      input = el(inner.style === 2 ? "textarea" : "input");
      if (inner.style !== 2) input.type = "text";
      if (inner.placeholder) input.placeholder = inner.placeholder;
      if (inner.max_length) input.maxLength = inner.max_length;
      if (inner.min_length) input.minLength = inner.min_length;
      if (inner.value) input.value = inner.value;
      input.required = inner.required !== false;
    } else {
      // As Discord: nothing is chosen unless the bot preselected it (`default`); a browser's single select
      // would otherwise show, and submit, its first option.
      input = el("select");
      input.multiple = (inner.max_values || 1) > 1;
      if (!input.multiple) {
        const none = el("option", null, inner.placeholder || "Make a selection");
        none.value = "";
        input.append(none);
      }
      for (const option of inner.options || []) {
        const item = el("option", null, option.label);
        item.value = option.value;
        item.selected = Boolean(option.default);
        input.append(item);
      }
      input.required = inner.required !== false && (inner.min_values === undefined || inner.min_values > 0);
    }
    input.id = id;
    input.dataset.customId = inner.custom_id;
    input.dataset.kind = String(inner.type);
    box.append(input);
    return box;
  }

  function showModal(modal, interactionId) {
    const dialog = document.getElementById("modal");
    dialog.replaceChildren();
    const shape = el("form", "modal-form");
    shape.method = "dialog";
    shape.append(el("h2", "modal-title", modal.title));
    for (const top of modal.components || []) {
      if (top.type === 1) (top.components || []).forEach((c) => shape.append(modalField(c)));
      else if (top.type === 18) shape.append(modalField(top));
      else if (top.type === 10 && top.content) shape.append(Render.markdown(top.content));
    }
    const actions = el("div", "modal-actions");
    const cancel = el("button", "modal-cancel", "Cancel");
    cancel.type = "button";
    cancel.addEventListener("click", () => dialog.close());
    const send = el("button", "modal-submit", "Submit");
    send.type = "submit";
    actions.append(cancel, send);
    shape.append(actions);
    shape.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!shape.reportValidity()) return;
      const values = {};
      shape.querySelectorAll("[data-custom-id]").forEach((input) => {
        values[input.dataset.customId] = input.dataset.kind === "4" ? input.value : Array.from(input.selectedOptions).map((o) => o.value).filter(Boolean);
      });
      dialog.close();
      const answer = await app.post("/api/modal", { user: app.state().me.id, interaction: interactionId, values });
      if (answer && answer.error) app.toast(answer.error, "error");
      else if (answer && answer.modal) showModal(answer.modal, answer.interaction_id);
    });
    dialog.append(shape);
    dialog.showModal();
    const first = shape.querySelector("input, textarea, select");
    if (first) first.focus();
  }

  return { init, onComposerKey, onComposerInput, onFormKey, choose, byName, closeForm, showModal, isOpen: () => current !== null };
})();
