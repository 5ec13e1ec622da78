// Wiring: config -> store -> service client -> core -> surfaces. Filled in as the parts land.
console.log('chatbot-bridge: nothing to run yet');
