"use client";
/** Sets the `user` cookie the routes' `authorize` reads: the example's stand-in for a real sign-in. */
import { useState } from "react";

export function SignIn() {
  const [name, setName] = useState("");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        document.cookie = `user=${encodeURIComponent(name)}; path=/; samesite=lax`;
        location.reload();
      }}
    >
      <label>
        Sign in as <input data-testid="sign-in-name" value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <button type="submit" disabled={!name.trim()}>
        Sign in
      </button>
    </form>
  );
}
